package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerGroup;
import dev.distlock.embedded.RedisTopologies;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.test.support.LockHistory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Redlock over five real masters while masters fail, every grant checked with the history checker: two masters down
 * leaves a majority and locking goes on; three down fails every acquire closed; a master frozen past a lease never
 * lets two nodes hold the lock unreported.
 */
class RedlockFaultTests {

    private static final Logger log = LoggerFactory.getLogger(RedlockFaultTests.class);

    static RedisServerGroup masters;

    private final LockHistory history = new LockHistory();

    private final List<StoreLockService> nodes = new ArrayList<>();

    @BeforeAll
    static void startMasters() {
        masters = RedisTopologies.sharedGroup();
    }

    @AfterEach
    void close() {
        nodes.forEach(StoreLockService::close);
        masters.heal();
    }

    private StoreLockService node() {
        StoreLockService node = new StoreLockService(RedlockStore.connect(
                new RedlockConfig(List.of(masters.uris().split(",")), "rl", Duration.ofSeconds(2))),
                LockConfig.defaults().withWaitTime(Duration.ofSeconds(2)).withLeaseTime(Duration.ofSeconds(1)),
                CompositeLockListener.of(List.of(history.listener())));
        node.start();
        nodes.add(node);
        return node;
    }

    /**
     * Two nodes, two threads each, take the lock in a loop until stopped; counts the refused acquires, and apart the
     * ones refused as unavailable (which a contended caller must never see while a majority of masters is up).
     */
    private static final class Load implements AutoCloseable {

        final AtomicBoolean stop = new AtomicBoolean();

        final AtomicInteger refused = new AtomicInteger();

        final AtomicInteger unavailable = new AtomicInteger();

        final AtomicInteger timedOut = new AtomicInteger();

        final AtomicReference<@Nullable RuntimeException> lastUnavailable = new AtomicReference<>();

        /** Per worker, the calls that ended (granted or refused) since {@link #steadyState}. */
        final AtomicIntegerArray ended = new AtomicIntegerArray(4);

        /** The longest call since {@link #steadyState}, in milliseconds. */
        final AtomicLong slowestMillis = new AtomicLong();

        final ExecutorService pool = Executors.newFixedThreadPool(4);

        final List<Future<?>> workers = new ArrayList<>();

        Load(LockHistory history, String name, StoreLockService... nodes) {
            for (int t = 0; t < 4; t++) {
                StoreLockService node = nodes[t % nodes.length];
                String holder = "node-" + (t % nodes.length) + "/" + t;
                int worker = t;
                workers.add(pool.submit(() -> {
                    while (!stop.get()) {
                        long called = System.nanoTime();
                        try (LockHandle handle = node.lock(name)) {
                            history.hold(holder, handle, () -> {
                                long end = System.nanoTime() + 5_000_000L;
                                while (System.nanoTime() < end) {
                                    Thread.onSpinWait();
                                }
                            });
                        }
                        catch (LockUnavailableException ex) {
                            refused.incrementAndGet();
                            unavailable.incrementAndGet();
                            lastUnavailable.set(ex);
                        }
                        catch (LockTimeoutException ex) {
                            refused.incrementAndGet();
                            timedOut.incrementAndGet();
                        }
                        finally {
                            slowestMillis.accumulateAndGet((System.nanoTime() - called) / 1_000_000, Math::max);
                            ended.incrementAndGet(worker);
                        }
                    }
                    return null;
                }));
            }
        }

        /** Starts counting anew, e.g. once the cluster settled after a fault. */
        void steadyState() {
            refused.set(0);
            unavailable.set(0);
            timedOut.set(0);
            lastUnavailable.set(null);
            slowestMillis.set(0);
            for (int i = 0; i < ended.length(); i++) {
                ended.set(i, 0);
            }
        }

        /** Waits until every worker's calls ended at least {@code calls} times since {@link #steadyState}. */
        void awaitEveryWorker(int calls) {
            await().atMost(Duration.ofSeconds(20)).until(() -> {
                for (int i = 0; i < ended.length(); i++) {
                    if (ended.get(i) < calls) {
                        return false;
                    }
                }
                return true;
            });
        }

        /** With a majority of masters up, busy masters mean waiting or a timeout, never "unavailable". */
        void assertNoneUnavailable() {
            assertThat(unavailable.get()).as("acquires refused as unavailable with a majority up, last: %s",
                    lastUnavailable.get()).isZero();
        }

        @Override
        public void close() throws Exception {
            stop.set(true);
            for (Future<?> worker : workers) {
                worker.get(60, TimeUnit.SECONDS);
            }
            pool.shutdown();
        }
    }

    @Test
    void twoMastersDownLeaveAMajorityAndLockingGoesOn() throws Exception {
        StoreLockService a = node();
        StoreLockService b = node();
        try (Load load = new Load(history, "two-down", a, b)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> history.grants().size() >= 20);
            masters.kill(0); // one after the other, as in issue 19 §3
            int oneDown = history.grants().size();
            await().atMost(Duration.ofSeconds(10)).until(() -> history.grants().size() >= oneDown + 10);
            masters.kill(1);
            int before = history.grants().size();
            await().atMost(Duration.ofSeconds(20)).until(() -> history.grants().size() >= before + 20);
            load.steadyState(); // three masters up and stable: contended callers wait, none fails as unavailable
            int steady = history.grants().size();
            long started = System.nanoTime();
            await().atMost(Duration.ofSeconds(20)).until(() -> history.grants().size() >= steady + 60);
            log.info("Redlock with 2 of 5 masters down, steady state: {} grants in {} ms, {} unavailable, {} timed out",
                    history.grants().size() - steady, (System.nanoTime() - started) / 1_000_000,
                    load.unavailable.get(), load.timedOut.get());
            load.assertNoneUnavailable();
        }
        history.assertConsistent();
    }

    @Test
    void aFrozenMasterDoesNotDelayAContendedAcquire() {
        StoreLockService a = node();
        StoreLockService b = node();
        LockHandle held = a.lock("contended");
        masters.pause(4);
        long started = System.nanoTime();
        CompletableFuture<Void> unlocked = CompletableFuture.runAsync(() -> {
            LockSupport.parkNanos(Duration.ofSeconds(1).toNanos()); // the behaviour under test: held for a second
            held.unlock();
        });
        Optional<LockHandle> got = b.tryLock("contended", LockOptions.defaults().withWaitTime(Duration.ofSeconds(3)));
        long tookMillis = (System.nanoTime() - started) / 1_000_000;
        unlocked.join();
        log.info("Redlock, master 4 of 5 frozen: contended tryLock got the lock after {} ms", tookMillis);
        assertThat(got).as("the lock, released after 1 s, with a frozen minority master").isPresent();
        assertThat(tookMillis).isLessThan(2_000);
        got.get().unlock();
    }

    @Test
    void twoFrozenMastersMakeABusyLockTimeOutNotFailAsUnavailable() {
        StoreLockService a = node();
        StoreLockService b = node();
        LockHandle held = a.lock("busy-two-frozen");
        masters.pause(3);
        masters.pause(4);
        for (int i = 0; i < 3; i++) {
            long started = System.nanoTime();
            Optional<LockHandle> got = b.tryLock("busy-two-frozen",
                    LockOptions.defaults().withWaitTime(Duration.ofMillis(300)));
            long tookMillis = (System.nanoTime() - started) / 1_000_000;
            assertThat(got).as("a lock held elsewhere, 3 of 5 masters up").isEmpty();
            assertThat(tookMillis).as("tryLock(wait 300 ms) with 2 of 5 masters frozen").isLessThan(1_500);
        }
        held.unlock();
    }

    @Test
    void threeMastersDownFailEveryAcquireClosed() {
        StoreLockService a = node();
        a.lock("warm").unlock();
        masters.kill(0);
        masters.kill(2);
        masters.kill(4);
        for (int i = 0; i < 5; i++) {
            boolean[] ran = { false };
            assertThatThrownBy(() -> a.runWithLock("three-down", () -> ran[0] = true))
                    .isInstanceOf(LockUnavailableException.class).hasMessageContaining("majority of 3");
            assertThat(ran[0]).isFalse();
        }
    }

    @Test
    void aMasterFrozenPastALeaseNeverLetsTwoNodesHoldUnreported() throws Exception {
        StoreLockService a = node();
        StoreLockService b = node();
        try (Load load = new Load(history, "frozen", a, b)) {
            await().atMost(Duration.ofSeconds(10)).until(() -> history.grants().size() >= 20);
            masters.pause(3);
            load.steadyState();
            int before = history.grants().size();
            long started = System.nanoTime();
            await().atMost(Duration.ofSeconds(20)).until(() -> history.grants().size() >= before + 40);
            load.awaitEveryWorker(5); // the contended ones too, not just whoever found the lock free
            log.info("Redlock with 1 of 5 masters frozen: {} grants in {} ms, {} unavailable, {} timed out, "
                    + "slowest call {} ms", history.grants().size() - before, (System.nanoTime() - started) / 1_000_000,
                    load.unavailable.get(), load.timedOut.get(), load.slowestMillis.get());
            load.assertNoneUnavailable(); // a frozen minority master must not fail contended acquires
            Thread.sleep(1500); // the behaviour under test: frozen for longer than a lease
            masters.resume(3);
            int resumed = history.grants().size();
            await().atMost(Duration.ofSeconds(20)).until(() -> history.grants().size() >= resumed + 40);
        }
        history.assertConsistent();
    }
}
