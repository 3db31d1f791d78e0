package dev.distlock.test.support.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.MultiLockHandle;
import dev.distlock.core.StoreLockService;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The store contract, several names at once: all or none within the wait time, one global order so that opposite
 * orders never deadlock.
 */
@StoreContract
class SeveralNamesContractTests extends ContractNodes {

    @Test
    void severalNamesAreTakenAllOrNoneWithinTheWaitTime() {
        StoreLockService a = node();
        StoreLockService b = node();
        LockHandle busy = b.lock("account:2");
        long start = System.nanoTime();
        assertThat(a.tryLockAll(List.of("account:2", "account:1"), LockOptions.defaults()
                .withWaitTime(Duration.ofMillis(300)))).as("one of them is held elsewhere").isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("the wait is for all of them together")
                .isBetween(Duration.ofMillis(300), Duration.ofSeconds(5));
        assertThat(storeOf(a).releases()).as("the one taken first was released again").isEqualTo(1);
        takeFreedLock(b, "account:1").unlock();
        busy.unlock();
        try (MultiLockHandle both = a.lockAll(List.of("account:2", "account:1", "account:2"), LockOptions.defaults())) {
            assertThat(both.locks()).extracting(LockHandle::name).as("sorted, duplicates once")
                    .containsExactly("account:1", "account:2");
            assertThat(both.isHeld()).isTrue();
            assertThat(b.tryLock("account:2", NO_WAIT)).isEmpty();
        }
        assertThat(storeOf(a).releases()).as("both released").isEqualTo(3);
    }

    @Test
    void namesAskedForInOppositeOrdersNeverDeadlockNorOverlap() throws Exception {
        StoreLockService[] two = { node(), node() };
        ExecutorService pool = Executors.newFixedThreadPool(4);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            StoreLockService node = two[t % 2];
            String nodeName = "node-" + (t % 2) + "/thread-" + t;
            // Half the callers ask for {from, to}, the other half for {to, from}: the transfer both ways.
            List<String> names = (t < 2) ? List.of("transfer:a", "transfer:b") : List.of("transfer:b", "transfer:a");
            futures.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < 8; i++) {
                    node.executeWithLocks(names, LockOptions.defaults().withWaitTime(Duration.ofSeconds(60)), () -> {
                        List<LockHandle> held = LockContext.all();
                        assertThat(held).extracting(LockHandle::name).containsExactly("transfer:a", "transfer:b");
                        assertThat(LockContext.current()).contains(held.get(0));
                        history.hold(nodeName, held.get(0), () -> history.hold(nodeName, held.get(1), Thread::yield));
                        return null;
                    });
                }
                return null;
            }));
        }
        go.countDown();
        try {
            for (Future<?> future : futures) {
                future.get(120, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(history.grants()).hasSize(2 * 4 * 8);
        history.assertConsistent();
    }
}
