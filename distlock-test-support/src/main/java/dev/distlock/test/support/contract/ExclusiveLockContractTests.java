package dev.distlock.test.support.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockType;
import dev.distlock.core.StoreLockService;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The store contract, exclusive locks: one holder at a time across nodes and threads, the wait time, hand-over to a
 * waiter, fencing tokens, scope reentrancy, handles, fixed leases, read/write locks and bad input.
 */
@StoreContract
class ExclusiveLockContractTests extends ContractNodes {

    @Test
    void mutualExclusionAcrossTwoNodesAndEightThreads() throws Exception {
        StoreLockService[] two = { node(), node() };
        int[] counter = { 0 }; // deliberately unsynchronised: only the lock keeps it right
        int perThread = 15;
        ExecutorService pool = Executors.newFixedThreadPool(8);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
            StoreLockService node = two[t % 2];
            String nodeName = "node-" + (t % 2) + "/thread-" + t;
            futures.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < perThread; i++) {
                    try (LockHandle handle = node.lock("counter", LockOptions.defaults()
                            .withWaitTime(Duration.ofSeconds(60)))) {
                        history.hold(nodeName, handle, () -> {
                            int read = counter[0];
                            Thread.yield();
                            counter[0] = read + 1;
                        });
                    }
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> future : futures) {
            future.get(120, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(counter[0]).isEqualTo(8 * perThread);
        assertThat(history.grants()).hasSize(8 * perThread);
        history.assertConsistent();
    }

    @Test
    void zeroWaitMakesOneAttemptAndReturnsEmptyWhenBusy() {
        StoreLockService a = node();
        StoreLockService b = node();
        try (LockHandle held = a.lock("once")) {
            long before = storeOf(b).attempts();
            Optional<LockHandle> none = b.tryLock("once", NO_WAIT);
            assertThat(none).isEmpty();
            assertThat(storeOf(b).attempts() - before).isEqualTo(1);
        }
    }

    @Test
    void waitTimeElapsesWithTimeoutException() {
        StoreLockService a = node();
        StoreLockService b = node();
        try (LockHandle held = a.lock("busy")) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> b.lock("busy", LockOptions.defaults().withWaitTime(Duration.ofMillis(300))))
                    .isInstanceOf(LockTimeoutException.class).hasMessageContaining("busy");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(300),
                    Duration.ofSeconds(5));
        }
    }

    @Test
    void waiterGetsTheLockWhenItIsReleased() throws Exception {
        StoreLockService a = node();
        StoreLockService b = node();
        LockHandle held = a.lock("handoff");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        CountDownLatch waiting = new CountDownLatch(1);
        Future<Long> waiter = pool.submit(() -> {
            waiting.countDown();
            try (LockHandle handle = b.lock("handoff", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)))) {
                return handle.fencingToken();
            }
        });
        waiting.await();
        await().atMost(Duration.ofSeconds(5)).until(() -> storeOf(b).attempts() >= 1);
        held.unlock();
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
        pool.shutdown();
    }

    @Test
    void fencingTokensIncreaseAcrossAlternatingHolders() {
        StoreLockService[] two = { node(), node() };
        for (int i = 0; i < 30; i++) {
            try (LockHandle handle = two[i % 2].lock("fenced")) {
                history.hold("node-" + (i % 2), handle, () -> {
                });
            }
        }
        history.assertConsistent();
    }

    @Test
    void nestedScopesReenterWithoutRoundTripsAndReleaseAtTheOutermost() {
        StoreLockService a = node();
        StoreLockService b = node();
        a.runWithLock("scoped", () -> {
            LockHandle outer = LockContext.current().orElseThrow();
            long attempts = storeOf(a).attempts();
            a.runWithLock("scoped", () -> {
                assertThat(LockContext.current()).get().extracting(LockHandle::fencingToken)
                        .isEqualTo(outer.fencingToken());
                try (LockHandle again = a.lock("scoped")) {
                    assertThat(again.fencingToken()).isEqualTo(outer.fencingToken());
                }
            });
            assertThat(storeOf(a).attempts()).as("no store round trip for reentrant holds").isEqualTo(attempts);
            assertThat(storeOf(a).releases()).isZero();
            assertThat(outer.isHeld()).isTrue();
            assertThat(b.tryLock("scoped", NO_WAIT)).isEmpty();
        });
        assertThat(LockContext.current()).isEmpty();
        assertThat(storeOf(a).releases()).isEqualTo(1);
        takeFreedLock(b, "scoped").unlock();
    }

    @Test
    void plainHandleIsNotReentrantOnAnyThread() throws Exception {
        StoreLockService a = node();
        LockHandle handle = a.lock("job");
        assertThat(a.tryLock("job", NO_WAIT))
                .as("the same thread asking again waits like anyone else").isEmpty();
        // The scheduled-job pattern: hand the handle to a worker, the next tick asks again on this thread.
        CountDownLatch handedOver = new CountDownLatch(1);
        CountDownLatch nextTickDone = new CountDownLatch(1);
        AtomicReference<Optional<LockHandle>> nextTick = new AtomicReference<>();
        Thread worker = new Thread(() -> {
            handedOver.countDown();
            try {
                nextTickDone.await();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
            handle.unlock();
        });
        worker.start();
        handedOver.await();
        nextTick.set(a.tryLock("job", LockOptions.defaults().withWaitTime(Duration.ofMillis(200))));
        nextTickDone.countDown();
        worker.join();
        assertThat(nextTick.get()).as("no second holder while the worker holds the lock").isEmpty();
        assertThat(handle.isHeld()).isFalse();
        takeFreedLock(a, "job").unlock();
    }

    @Test
    void unlockIsIdempotentAndMayHappenOnAnotherThread() throws Exception {
        StoreLockService a = node();
        StoreLockService b = node();
        LockHandle handle = a.lock("idem");
        Thread other = new Thread(handle::unlock);
        other.start();
        other.join();
        assertThat(handle.isHeld()).isFalse();
        LockHandle next = b.lock("idem");
        handle.unlock();
        handle.close();
        assertThat(next.isHeld()).isTrue();
        assertThat(a.tryLock("idem", NO_WAIT))
                .as("a second unlock of the first handle did not release the new holder").isEmpty();
        next.unlock();
    }

    @Test
    void fixedLeaseRunsOutAndItsLateReleaseIsNotThrown() {
        StoreLockService a = node();
        StoreLockService b = node();
        LockHandle fixed = a.lock("fixed", LockOptions.defaults().withLeaseTime(Duration.ofMillis(300)));
        LockHandle next = b.lock("fixed", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)));
        assertThat(fixed.isHeld()).isFalse();
        assertThat(next.fencingToken()).isGreaterThan(fixed.fencingToken());
        fixed.unlock(); // reported, not thrown
        assertThat(next.isHeld()).isTrue();
        assertThat(a.tryLock("fixed", NO_WAIT)).isEmpty();
        next.unlock();
    }

    @Test
    void readLocksExcludeWritersAndAreSharedWhereTheStoreSharesThem() {
        StoreLockService a = node();
        StoreLockService b = node();
        LockOptions read = LockOptions.defaults().withType(LockType.READ).withWaitTime(Duration.ZERO);
        LockOptions write = LockOptions.defaults().withType(LockType.WRITE).withWaitTime(Duration.ZERO);
        try (LockHandle reader = a.lock("rw", read)) {
            assertThat(b.tryLock("rw", write)).as("a writer waits for readers").isEmpty();
            Optional<LockHandle> second = b.tryLock("rw", read);
            assertThat(second.isPresent()).isEqualTo(sharesReadLocks());
            second.ifPresent(LockHandle::unlock);
        }
        try (LockHandle writer = a.lock("rw", write)) {
            assertThat(b.tryLock("rw", read)).as("readers wait for a writer").isEmpty();
        }
    }

    @Test
    void badInputIsRefusedWithAClearMessage() {
        StoreLockService a = node();
        assertThatThrownBy(() -> a.tryLock("", LockOptions.defaults())).isInstanceOf(IllegalArgumentException.class)
                .hasMessageContaining("name");
        assertThatThrownBy(() -> LockOptions.defaults().withWaitTime(Duration.ofSeconds(-1)))
                .hasMessageContaining("waitTime");
        assertThatThrownBy(() -> LockOptions.defaults().withLeaseTime(Duration.ofNanos(500)))
                .hasMessageContaining("leaseTime");
    }
}
