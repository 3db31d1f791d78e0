package dev.distlock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LeaseLostException;
import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockType;
import dev.distlock.LockUnavailableException;
import dev.distlock.OnLeaseLost;
import dev.distlock.core.LockConfig;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.test.support.LockHistory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The in-memory lock service has the semantics the issue promises applications: mutual exclusion within the JVM
 * (and between services on one store), wait and timeout, fencing order, reentrancy scopes, and lease expiry —
 * watchdog renewal, fixed leases running out and leases lost behind the holder's back.
 */
class InMemoryLockServiceTests {

    private static final LockOptions NO_WAIT = LockOptions.defaults().withWaitTime(Duration.ZERO);

    private final List<InMemoryLockService> services = new ArrayList<>();

    private final ExecutorService pool = Executors.newCachedThreadPool();

    private InMemoryLockService service(InMemoryLockService service) {
        services.add(service);
        return service;
    }

    private InMemoryLockService service() {
        return service(new InMemoryLockService());
    }

    @AfterEach
    void close() {
        pool.shutdownNow();
        services.forEach(InMemoryLockService::close);
    }

    @Test
    void threadsOfTheJvmTakeTurns() throws Exception {
        InMemoryLockService locks = service();
        int[] counter = { 0 }; // deliberately unsynchronised: only the lock keeps it right
        AtomicInteger active = new AtomicInteger();
        AtomicInteger maxActive = new AtomicInteger();
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            threads.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < 25; i++) {
                    locks.runWithLock("counter", LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)), () -> {
                        maxActive.accumulateAndGet(active.incrementAndGet(), Math::max);
                        int read = counter[0];
                        Thread.yield();
                        counter[0] = read + 1;
                        active.decrementAndGet();
                    });
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> thread : threads) {
            thread.get(60, TimeUnit.SECONDS);
        }
        assertThat(counter[0]).isEqualTo(100);
        assertThat(maxActive).hasValue(1);
        assertThat(locks.grants()).hasSize(100);
    }

    @Test
    void servicesOnOneStoreAreNodesThatExcludeEachOther() throws Exception {
        InMemoryLockStore store = new InMemoryLockStore();
        InMemoryLockService[] nodes = { service(new InMemoryLockService(store)),
                service(new InMemoryLockService(store)) };
        LockHistory history = new LockHistory();
        List<Future<?>> threads = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            InMemoryLockService node = nodes[t % 2];
            String name = "node-" + (t % 2) + "/thread-" + t;
            threads.add(pool.submit(() -> {
                for (int i = 0; i < 20; i++) {
                    try (LockHandle handle = node.lock("shared", LockOptions.defaults()
                            .withWaitTime(Duration.ofSeconds(30)))) {
                        history.hold(name, handle, Thread::yield);
                    }
                }
                return null;
            }));
        }
        for (Future<?> thread : threads) {
            thread.get(60, TimeUnit.SECONDS);
        }
        assertThat(history.grants()).hasSize(80);
        history.assertConsistent();
        assertThat(store.isLocked("shared")).isFalse();
    }

    @Test
    void aWaiterGetsTheLockWhenItIsReleasedAndOtherwiseTimesOut() throws Exception {
        InMemoryLockService locks = service();
        LockHandle held = locks.lock("busy");
        // A handle is not a scope: the thread that holds it waits for the lock like any other caller.
        long start = System.nanoTime();
        assertThat(locks.tryLock("busy", LockOptions.defaults().withWaitTime(Duration.ofMillis(200)))).isEmpty();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isGreaterThanOrEqualTo(Duration.ofMillis(200));
        assertThatThrownBy(() -> locks.lock("busy", LockOptions.defaults().withWaitTime(Duration.ofMillis(50))))
                .isInstanceOf(LockTimeoutException.class).hasMessageContaining("'busy'");

        CountDownLatch waiting = new CountDownLatch(1);
        Future<Long> waiter = pool.submit(() -> {
            waiting.countDown();
            try (LockHandle handle = locks.lock("busy", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)))) {
                return handle.fencingToken();
            }
        });
        waiting.await();
        // Released from another thread than the one that took it: ownership is the acquisition's, not a thread's.
        CompletableFuture.runAsync(held::unlock, pool).get(10, TimeUnit.SECONDS);
        assertThat(waiter.get(10, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
    }

    @Test
    void theDefaultWaitIsOneSecond() {
        InMemoryLockService locks = service();
        LockHandle held = locks.lock("slow");
        long start = System.nanoTime();
        assertThatThrownBy(() -> locks.lock("slow")).isInstanceOf(LockTimeoutException.class);
        // Not the production default of 3 s: a test that expects a timeout gets it sooner.
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofSeconds(1),
                Duration.ofMillis(2900));
        held.unlock();
    }

    @Test
    void aReleaseWakesTheWaiterOfAnotherNodeAtOnce() throws Exception {
        InMemoryLockStore store = new InMemoryLockStore();
        InMemoryLockService holder = service(new InMemoryLockService(store));
        InMemoryLockService waiter = service(new InMemoryLockService(store));
        // A third node that leaves must not take the others' notifications with it.
        new InMemoryLockService(store).close();
        List<Long> handOffMillis = new ArrayList<>();
        for (int round = 0; round < 5; round++) {
            LockHandle held = holder.lock("wake", LockOptions.defaults().withLeaseTime(Duration.ofMinutes(1)));
            Thread[] waitingThread = new Thread[1];
            Future<Long> acquired = pool.submit(() -> {
                waitingThread[0] = Thread.currentThread();
                try (LockHandle handle = waiter.lock("wake", LockOptions.defaults()
                        .withWaitTime(Duration.ofSeconds(20)))) {
                    return System.nanoTime();
                }
            });
            // Parked between attempts: without a notification it would sleep until its next re-check (500 ms).
            await().pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(10)).until(
                    () -> waitingThread[0] != null && waitingThread[0].getState() == Thread.State.TIMED_WAITING);
            long released = System.nanoTime();
            held.unlock();
            handOffMillis.add((acquired.get(10, TimeUnit.SECONDS) - released) / 1_000_000L);
        }
        // The median, so that one hiccup of a loaded machine does not fail the test.
        assertThat(handOffMillis.stream().sorted().toList().get(2)).as("hand-offs (ms): %s", handOffMillis)
                .isLessThan(250);
    }

    @Test
    void fencingTokensIncreaseInGrantOrderAcrossNodesAndModes() {
        InMemoryLockStore store = new InMemoryLockStore();
        InMemoryLockService[] nodes = { service(new InMemoryLockService(store)),
                service(new InMemoryLockService(store)) };
        long last = 0;
        for (int i = 0; i < 10; i++) {
            LockType type = i % 3 == 0 ? LockType.READ : LockType.WRITE;
            try (LockHandle handle = nodes[i % 2].lock("fenced", LockOptions.defaults().withType(type))) {
                assertThat(handle.fencingToken()).as("grant %s (%s)", i, type).isGreaterThan(last);
                last = handle.fencingToken();
            }
        }
    }

    @Test
    void reentrancyBelongsToTheScopeNotToTheThread() {
        InMemoryLockService locks = service();
        String seen = locks.executeWithLock("re", () -> {
            // Inside the scope: the same name again is granted at once, with the scope's fencing token.
            LockHandle scope = LockContext.current().orElseThrow();
            try (LockHandle inner = locks.lock("re", NO_WAIT)) {
                assertThat(inner.fencingToken()).isEqualTo(scope.fencingToken());
            }
            // Releasing the inner hold leaves the lock with the scope.
            assertThat(locks.store().isLocked("re")).isTrue();
            return locks.executeWithLock("re", NO_WAIT, () -> "nested");
        });
        assertThat(seen).isEqualTo("nested");
        assertThat(locks.store().isLocked("re")).isFalse();
        assertThat(locks.grants()).extracting(InMemoryLockService.Grant::name).containsExactly("re");

        // A handle is an acquisition, not a scope: the same thread cannot re-enter it.
        LockHandle handle = locks.lock("acquisition");
        assertThat(locks.tryLock("acquisition", NO_WAIT)).isEmpty();
        handle.unlock();
        assertThat(locks.tryLock("acquisition", NO_WAIT)).hasValueSatisfying(LockHandle::unlock);
    }

    @Test
    void aWatchdogLeaseIsRenewedForAsLongAsItIsHeld() {
        InMemoryLockStore store = new InMemoryLockStore();
        LockConfig shortLease = LockConfig.defaults().withLeaseTime(Duration.ofMillis(300));
        InMemoryLockService locks = service(new InMemoryLockService(store, shortLease));
        InMemoryLockService other = service(new InMemoryLockService(store, shortLease));
        try (LockHandle handle = locks.lock("renewed")) {
            await().during(Duration.ofSeconds(1)).atMost(Duration.ofSeconds(3))
                    .until(() -> handle.isHeld() && other.tryLock("renewed", NO_WAIT).isEmpty());
        }
        assertThat(other.tryLock("renewed", NO_WAIT)).hasValueSatisfying(LockHandle::unlock);
    }

    @Test
    void aFixedLeaseRunsOutAndTheLockGoesToTheNextCaller() {
        InMemoryLockStore store = new InMemoryLockStore();
        InMemoryLockService locks = service(new InMemoryLockService(store));
        InMemoryLockService other = service(new InMemoryLockService(store));
        LockHandle fixed = locks.lock("fixed", LockOptions.defaults().withLeaseTime(Duration.ofMillis(200)));
        assertThat(other.tryLock("fixed", NO_WAIT)).isEmpty();
        await().atMost(Duration.ofSeconds(5)).until(() -> !fixed.isHeld());
        try (LockHandle next = other.lock("fixed", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)))) {
            assertThat(next.fencingToken()).isGreaterThan(fixed.fencingToken());
            // The late unlock is reported (logged and counted), not thrown, and does not release the new holder.
            fixed.unlock();
            assertThat(next.isHeld()).isTrue();
            assertThat(store.isLocked("fixed")).isTrue();
        }
    }

    @Test
    void aLeaseLostBehindTheHoldersBackIsReported() {
        InMemoryLockService locks = service(new InMemoryLockService(new InMemoryLockStore(), LockConfig.defaults()
                .withLeaseTime(Duration.ofMillis(300)).withOnLeaseLost(OnLeaseLost.THROW)));
        assertThatThrownBy(() -> locks.runWithLock("lost", () -> {
            LockHandle handle = LockContext.current().orElseThrow();
            locks.store().forget("lost");
            // The watchdog finds the lease gone on its next renewal.
            await().atMost(Duration.ofSeconds(5)).until(() -> !handle.isHeld());
        })).isInstanceOf(LeaseLostException.class).hasMessageContaining("'lost'");
    }

    @Test
    void readersShareALockThatExcludesWriters() {
        InMemoryLockService locks = service();
        LockOptions read = LockOptions.defaults().withType(LockType.READ).withWaitTime(Duration.ZERO);
        LockOptions write = LockOptions.defaults().withType(LockType.WRITE).withWaitTime(Duration.ZERO);
        LockHandle first = locks.lock("doc", read);
        LockHandle second = locks.lock("doc", read);
        assertThat(locks.tryLock("doc", write)).isEmpty();
        first.unlock();
        assertThat(locks.tryLock("doc", write)).isEmpty();
        second.unlock();
        LockHandle writer = locks.lock("doc", write);
        assertThat(locks.tryLock("doc", read)).isEmpty();
        writer.unlock();
    }

    @Test
    void anOutageFailsClosedUntilItEnds() {
        InMemoryLockService locks = service();
        locks.store().makeUnavailable();
        AtomicInteger ran = new AtomicInteger();
        assertThatThrownBy(() -> locks.runWithLock("down", ran::incrementAndGet))
                .isInstanceOf(LockUnavailableException.class);
        assertThat(ran).hasValue(0);
        assertThat(locks.storeHealth(Duration.ofSeconds(1)).up()).isFalse();
        locks.store().makeAvailable();
        locks.runWithLock("down", ran::incrementAndGet);
        assertThat(ran).hasValue(1);
    }

    @Test
    void recordsEachGrantOnceAndForgetsThemOnRequest() {
        InMemoryLockService locks = service();
        locks.runWithLock("a", () -> locks.runWithLock("a", () -> {
        }));
        Optional<LockHandle> b = locks.tryLock("b");
        assertThat(locks.grants()).extracting(InMemoryLockService.Grant::name).containsExactly("a", "b");
        InMemoryLockService.Grant grant = locks.grants().get(1);
        assertThat(grant.fencingToken()).isEqualTo(b.orElseThrow().fencingToken());
        assertThat(grant.thread()).isEqualTo(Thread.currentThread().getName());
        assertThat(grant.handle().isHeld()).isTrue();
        locks.clearGrants();
        assertThat(locks.grants()).isEmpty();
        assertThat(b.get().isHeld()).as("forgetting grants releases nothing").isTrue();
        b.get().unlock();
    }
}
