package dev.distlock.core;

import dev.distlock.spi.Waiting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockType;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The engine's local hand-off, on the in-memory store (no Redis): with a store whose tokens follow the clock,
 * threads of one JVM pass a held lock to each other without asking the store, each with a higher fencing token;
 * the streak ends at its count bound; FAIR locks and stores whose tokens do not follow the clock never hand off.
 */
class LocalHandOffTests {

    private final List<StoreLockService> services = new ArrayList<>();

    /** Attempts that reached the store. */
    private final AtomicLong attempts = new AtomicLong();

    @AfterEach
    void close() {
        services.forEach(StoreLockService::close);
    }

    private StoreLockService node(InMemoryLockStore store, int maxCount) {
        ForwardingLockStore counting = new ForwardingLockStore(store.connect()) {
            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
                attempts.incrementAndGet();
                return super.attempt(request, waiting);
            }
        };
        StoreLockService service = new StoreLockService(counting, LockConfig.defaults()
                .withWaitTime(Duration.ofSeconds(30)).withLocalHandOff(maxCount, Duration.ofMinutes(1)),
                LockListener.NONE);
        service.start();
        services.add(service);
        return service;
    }

    /**
     * Four threads take the lock in turn until {@code grants} are reached; checks under the lock that nobody else
     * holds it and that every token is above the one before. A holder works until another thread has asked for the
     * lock (or no grant is left to ask for), then a little more, so that a local hand-off has a thread to go to
     * however the four threads are scheduled on few cores.
     */
    private void hammer(StoreLockService node, LockOptions options, int grants) throws Exception {
        AtomicInteger remaining = new AtomicInteger(grants);
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger asking = new AtomicInteger(); // threads between calling lock() and getting the lock
        List<Long> tokens = new ArrayList<>(); // appended under the lock only
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> workers = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                workers.add(pool.submit(() -> {
                    while (remaining.getAndDecrement() > 0) {
                        asking.incrementAndGet();
                        try (LockHandle handle = node.lock("hot", options)) {
                            asking.decrementAndGet();
                            assertThat(inside.incrementAndGet()).as("holders at once").isEqualTo(1);
                            tokens.add(handle.fencingToken());
                            long giveUp = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
                            while (asking.get() == 0 && remaining.get() > 0 && System.nanoTime() - giveUp < 0) {
                                Thread.onSpinWait();
                            }
                            spin(50_000); // the thread that asked gets into the local queue meanwhile
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdown();
        }
        assertThat(tokens).hasSize(grants).isSorted().doesNotHaveDuplicates();
    }

    private static void spin(long nanos) {
        long end = System.nanoTime() + nanos;
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }

    @Test
    void threadsOfOneJvmHandTheLockOnWithoutTheStoreAndWithIncreasingTokens() throws Exception {
        hammer(node(InMemoryLockStore.withClockTokens(), 1000), LockOptions.defaults(), 400);
        // Without local hand-off every one of the 400 grants asks the store; with it, far fewer do.
        assertThat(attempts.get()).as("most grants were local hand-offs").isLessThan(200);
    }

    @Test
    void aStreakEndsAtItsCountBound() throws Exception {
        hammer(node(InMemoryLockStore.withClockTokens(), 4), LockOptions.defaults(), 400);
        // At most four local hand-offs per grant from the store: at least one store grant per five.
        assertThat(attempts.get()).isGreaterThanOrEqualTo(80);
    }

    @Test
    void fairLocksAreNeverHandedOffLocally() throws Exception {
        hammer(node(InMemoryLockStore.withClockTokens(), 1000), LockOptions.defaults().withType(LockType.FAIR), 200);
        assertThat(attempts.get()).as("one store grant per holder").isGreaterThanOrEqualTo(200);
    }

    @Test
    void aStoreWhoseTokensDoNotFollowTheClockNeverHandsOffLocally() throws Exception {
        hammer(node(new InMemoryLockStore(), 1000), LockOptions.defaults(), 200);
        assertThat(attempts.get()).as("one store grant per holder").isGreaterThanOrEqualTo(200);
    }
}
