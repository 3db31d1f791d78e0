package dev.distlock.test.support;

import dev.distlock.spi.Waiting;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LeaseLostException;
import dev.distlock.LockContext;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockType;
import dev.distlock.LockUnavailableException;
import dev.distlock.MultiLockHandle;
import dev.distlock.OnLeaseLost;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.leader.Leadership;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.StoreEvents;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The contract every lock store passes, run unchanged against each (as ShedLock's provider tests are): extend it,
 * say how to make a store node and how to break one, and every test here runs against the real store.
 * <p>
 * Nodes are {@link StoreLockService}s, each on a store of its own (its own connections), standing for separate
 * application instances. Every store is wrapped in a {@link CountingLockStore} so that round trips can be counted.
 */
public abstract class LockStoreContractTests {

    /** How long {@link #takeFreedLock} waits: far below the default lease of 30 s. */
    private static final Duration FREED_LOCK_WAIT = Duration.ofSeconds(5);

    /** The history of the current test; nodes report lease losses to it. */
    protected final LockHistory history = new LockHistory();

    private final List<StoreLockService> nodes = new ArrayList<>();

    private final List<CountingLockStore> stores = new ArrayList<>();

    /** @return a new store node with connections of its own, not started */
    protected abstract LockStore newStore();

    /** Makes the store unreachable for every node (stop the server). */
    protected abstract void stopStore();

    /** Makes it reachable again after {@link #stopStore()}. */
    protected abstract void startStore();

    /**
     * Makes the store forget the holder of a lock behind its back (delete its key, row or node), as data loss or
     * an operator would.
     *
     * @param name the lock name
     */
    protected abstract void breakLease(String name);

    /** @return whether the store shares {@link LockType#READ} locks between readers (else READ is exclusive) */
    protected boolean sharesReadLocks() {
        return true;
    }

    /** @return the default settings of test nodes: a 5 s wait, a 30 s watchdog lease */
    protected LockConfig config() {
        return LockConfig.defaults().withWaitTime(Duration.ofSeconds(5));
    }

    /** @return a started node with the default test settings */
    protected StoreLockService node() {
        return node(config());
    }

    /**
     * @param config the node's settings
     * @return a started node
     */
    protected StoreLockService node(LockConfig config) {
        CountingLockStore store = new CountingLockStore(newStore());
        StoreLockService node = new StoreLockService(store, config, CompositeLockListener.of(List.of(
                history.listener())));
        node.start();
        nodes.add(node);
        stores.add(store);
        return node;
    }

    /**
     * @param node a node made by {@link #node()}
     * @return the counting store of that node
     */
    protected CountingLockStore storeOf(StoreLockService node) {
        return stores.get(nodes.indexOf(node));
    }

    /**
     * Takes a lock that was just released, allowing a moment far below the lease: a quorum store answers a release
     * once a majority of its nodes released, and the last node's release, or the undo of a refused attempt that one
     * node granted late, may land a moment later; the next holder then tries again after a short delay. A release
     * that left the lock held still fails here, since the lease (30 s) outlasts the wait.
     *
     * @param node the node that takes the lock
     * @param name the lock released just before
     * @return the lock, held
     */
    protected LockHandle takeFreedLock(StoreLockService node, String name) {
        Optional<LockHandle> taken = node.tryLock(name, LockOptions.defaults().withWaitTime(FREED_LOCK_WAIT));
        assertThat(taken).as("lock '%s' free after its release (within %s)", name, FREED_LOCK_WAIT).isPresent();
        return taken.get();
    }

    @AfterEach
    void closeNodes() {
        nodes.forEach(StoreLockService::close);
        nodes.clear();
        stores.clear();
    }

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
            Optional<LockHandle> none = b.tryLock("once", LockOptions.defaults().withWaitTime(Duration.ZERO));
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
            assertThat(b.tryLock("scoped", LockOptions.defaults().withWaitTime(Duration.ZERO))).isEmpty();
        });
        assertThat(LockContext.current()).isEmpty();
        assertThat(storeOf(a).releases()).isEqualTo(1);
        takeFreedLock(b, "scoped").unlock();
    }

    @Test
    void plainHandleIsNotReentrantOnAnyThread() throws Exception {
        StoreLockService a = node();
        LockHandle handle = a.lock("job");
        assertThat(a.tryLock("job", LockOptions.defaults().withWaitTime(Duration.ZERO)))
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
        assertThat(a.tryLock("idem", LockOptions.defaults().withWaitTime(Duration.ZERO)))
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
        assertThat(a.tryLock("fixed", LockOptions.defaults().withWaitTime(Duration.ZERO))).isEmpty();
        next.unlock();
    }

    @Test
    void oneLeaderAtATimeAndTheLeadershipPassesOnAYieldAndAClose() {
        StoreLockService a = node();
        StoreLockService b = node();
        LeadershipLog log = new LeadershipLog();
        Leadership first = a.campaign("jobs", log.listener("a"));
        // isLeader() is true before the listener's granted runs (on a thread of its own), and a term that ends before
        // its granted started tells neither call: so each step waits for the call it expects before ending the term.
        await().atMost(Duration.ofSeconds(10)).until(() -> log.events().size() == 1);
        assertThat(first.isLeader()).isTrue();
        Leadership second = b.campaign("jobs", log.listener("b"));
        long firstToken = first.lease().orElseThrow().fencingToken();
        assertThat(a.leaderOf()).containsExactly("jobs");
        first.yieldLeadership();
        await().atMost(Duration.ofSeconds(20)).until(() -> log.events().size() == 3);
        assertThat(second.isLeader()).isTrue();
        assertThat(second.lease().orElseThrow().fencingToken()).as("the lease fences").isGreaterThan(firstToken);
        assertThat(b.leaderOf()).containsExactly("jobs");
        second.close();
        assertThat(second.isLeader()).isFalse();
        await("the first candidate campaigned again").atMost(Duration.ofSeconds(20))
                .until(() -> log.events().size() == 5);
        assertThat(first.isLeader()).isTrue();
        first.close();
        assertThat(a.leaderOf()).isEmpty();
        assertThat(log.events()).containsExactly("a granted", "a revoked", "b granted", "b revoked", "a granted",
                "a revoked");
        log.assertNeverTwoLeaders();
    }

    @Test
    void aLeaderWhoseLeaseIsLostIsRevokedAndAnotherLeads() {
        LockConfig shortLease = config().withLeaseTime(Duration.ofMillis(1500));
        StoreLockService a = node(shortLease);
        StoreLockService b = node(shortLease);
        LeadershipLog log = new LeadershipLog();
        Leadership first = a.campaign("lost", log.listener("a"));
        await().atMost(Duration.ofSeconds(10)).until(first::isLeader);
        Leadership second = b.campaign("lost", log.listener("b"));
        breakLease("leader:lost");
        await().atMost(Duration.ofSeconds(20)).until(() -> log.events().contains("a revoked"));
        // The other candidate may be granted before the leader learns of the loss (the store forgot the lease
        // behind its back), never before it could: the leader is revoked, and one of them leads again.
        await().atMost(Duration.ofSeconds(20)).until(() -> first.isLeader() || second.isLeader());
        assertThat(log.events()).startsWith("a granted");
        first.close();
        second.close();
    }

    @Test
    void aLeaderIsRevokedNoLaterThanItsLeaseCanHaveExpiredWhenTheStoreIsGone() {
        Duration lease = Duration.ofMillis(1000);
        StoreLockService a = node(config().withLeaseTime(lease));
        Assumptions.assumeTrue(storeOf(a).traits().leasesExpire(), "the store's leases end with the session, which has "
                + "timings of its own");
        LeadershipLog log = new LeadershipLog();
        Leadership leadership = a.campaign("gone", log.listener("a"));
        await().atMost(Duration.ofSeconds(10)).until(leadership::isLeader);
        stopStore();
        long stopped = System.nanoTime();
        try {
            await().atMost(lease.multipliedBy(4)).until(() -> log.events().contains("a revoked"));
            assertThat(Duration.ofNanos(log.revokedAt("a") - stopped)).as("revoked within the lease")
                    .isLessThanOrEqualTo(lease);
        }
        finally {
            startStore();
            leadership.close();
        }
    }

    @Test
    void aBlankLeadershipGroupIsRefused() {
        assertThatThrownBy(() -> node().campaign(" ", LeadershipLog.IGNORED))
                .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("group must not be blank");
    }

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
            assertThat(b.tryLock("account:2", LockOptions.defaults().withWaitTime(Duration.ZERO))).isEmpty();
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

    @Test
    void holdAtLeastKeepsTheLockAfterAnEarlierUnlockAndThenReleasesIt() {
        StoreLockService a = node();
        StoreLockService b = node();
        Duration hold = Duration.ofMillis(1000);
        long started = System.nanoTime();
        LockHandle job = a.lock("hold-at-least", LockOptions.defaults().withHoldAtLeast(hold));
        job.unlock();
        assertThat(job.isHeld()).as("the caller's hold ended").isFalse();
        assertThat(storeOf(a).releases()).as("the unlock returns without releasing in the store").isZero();
        assertThat(b.tryLock("hold-at-least", LockOptions.defaults().withWaitTime(Duration.ZERO)))
                .as("held on after the unlock").isEmpty();
        // Released when the time is up, not left to the lease (a watchdog lease of 30 s, above the wait).
        LockHandle next = b.lock("hold-at-least", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)));
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("held at least that long")
                .isGreaterThanOrEqualTo(hold);
        assertThat(next.fencingToken()).isGreaterThan(job.fencingToken());
        assertThat(storeOf(a).releases()).isEqualTo(1);
        next.unlock();
    }

    @Test
    void aShutdownNeitherWaitsForNorEndsAHoldAtLeast() {
        StoreLockService a = node();
        Assumptions.assumeTrue(storeOf(a).traits().leasesExpire(), "the store's locks end with the instance's session: a "
                + "hold at least ends with it");
        StoreLockService b = node();
        LockOptions job = LockOptions.defaults().withLeaseTime(Duration.ofMillis(1200))
                .withHoldAtLeast(Duration.ofMillis(800));
        a.lock("hold-shutdown", job).unlock();
        assertThat(a.awaitIdle(Duration.ZERO)).as("no held work to wait for").isTrue();
        a.close();
        assertThat(b.tryLock("hold-shutdown", LockOptions.defaults().withWaitTime(Duration.ZERO)))
                .as("the shutdown left the lock to its lease").isEmpty();
        b.lock("hold-shutdown", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10))).unlock();
    }

    @Test
    void aForcedReleaseHandsTheLockToTheWaiterWithAHigherTokenAndTheHolderLearnsOfTheLoss() throws Exception {
        LockConfig shortLease = config().withLeaseTime(Duration.ofMillis(1500));
        StoreLockService holder = node(shortLease);
        StoreLockService waiter = node(shortLease);
        StoreLockService operator = node(shortLease);
        LockHandle stuck = holder.lock("forced");
        CompletableFuture<LockHandle> next = CompletableFuture.supplyAsync(
                () -> waiter.lock("forced", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20))));
        await().atMost(Duration.ofSeconds(10)).until(() -> storeOf(waiter).attempts() > 0);
        assertThat(next).as("the holder's watchdog keeps the lock").isNotDone();

        assertThat(operator.forceRelease("forced")).isTrue();
        LockHandle taken = next.get(20, TimeUnit.SECONDS);
        assertThat(taken.fencingToken()).as("the next holder's token").isGreaterThan(stuck.fencingToken());
        await().atMost(Duration.ofSeconds(10)).until(() -> !stuck.isHeld());
        assertThat(holder.heldLocks()).isEmpty();
        assertThat(taken.isHeld()).as("the old holder's loss leaves the new holder alone").isTrue();
        assertThatCode(stuck::unlock).as("a lost lease is reported, not thrown").doesNotThrowAnyException();
        assertThat(taken.isHeld()).as("the old holder's late unlock leaves the new holder alone").isTrue();
        taken.unlock();
        assertThat(operator.forceRelease("forced")).as("a free lock").isFalse();
    }

    @Test
    void aForcedReleaseOfALockOfThisInstanceEndsItsHandleAtOnce() {
        StoreLockService node = node();
        LockHandle held = node.lock("forced-here");
        assertThat(node.forceRelease("forced-here")).isTrue();
        assertThat(held.isHeld()).isFalse();
        assertThat(node.heldLocks()).isEmpty();
        try (LockHandle again = takeFreedLock(node, "forced-here")) {
            assertThat(again.fencingToken()).isGreaterThan(held.fencingToken());
        }
        assertThatThrownBy(() -> node.forceRelease("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aForcedReleaseEndsEveryReader() {
        StoreLockService readers = node(config().withLeaseTime(Duration.ofMillis(1500)));
        StoreLockService writer = node();
        LockOptions read = LockOptions.defaults().withType(LockType.READ);
        LockHandle first = readers.lock("forced-read", read);
        Optional<LockHandle> second = sharesReadLocks()
                ? Optional.of(writer.lock("forced-read", read.withWaitTime(Duration.ZERO))) : Optional.empty();
        assertThat(writer.forceRelease("forced-read")).isTrue();
        second.ifPresent(shared -> assertThat(shared.isHeld()).as("a reader of the operator's instance").isFalse());
        try (LockHandle taken = takeFreedLock(writer, "forced-read")) {
            assertThat(taken.fencingToken()).isGreaterThan(first.fencingToken());
            await().atMost(Duration.ofSeconds(10)).until(() -> !first.isHeld());
        }
    }

    @Test
    void upToThePermitsHoldAtOnceWithTokensIncreasingInGrantOrder() throws Exception {
        StoreLockService a = node();
        StoreLockService b = node();
        assumePermits(a);
        LockOptions three = LockOptions.defaults().withPermits(3).withWaitTime(Duration.ZERO);
        LockHandle first = a.lock("pool", three);
        LockHandle second = b.lock("pool", three);
        LockHandle third = a.lock("pool", three);
        assertThat(List.of(first, second, third)).extracting(LockHandle::fencingToken).isSorted()
                .doesNotHaveDuplicates();
        assertThat(b.tryLock("pool", three)).as("a fourth holder of three permits").isEmpty();
        second.unlock();
        Optional<LockHandle> fourth = b.tryLock("pool", three.withWaitTime(FREED_LOCK_WAIT));
        assertThat(fourth).as("the permit freed by a release").isPresent();
        assertThat(fourth.get().fencingToken()).isGreaterThan(third.fencingToken());
        List.of(first, third, fourth.get()).forEach(LockHandle::unlock);

        // Two nodes, four threads each, on two permits: never more than two inside, tokens in the store's grant
        // order. That order is the store's own (a reservation, a place in line), which callers may observe
        // differently for two waiters let in at once; what they always observe is that a call made after a grant
        // returned gets a higher token than that grant (see LockMode.Permits).
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        AtomicLong events = new AtomicLong();
        List<PermitGrant> grants = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                StoreLockService node = t % 2 == 0 ? a : b;
                work.add(pool.submit(() -> {
                    for (int i = 0; i < 5; i++) {
                        long calledAfter = events.get();
                        try (LockHandle permit = node.lock("pool-load", LockOptions.defaults().withPermits(2)
                                .withWaitTime(Duration.ofSeconds(20)))) {
                            synchronized (grants) {
                                grants.add(new PermitGrant(calledAfter, events.incrementAndGet(),
                                        permit.fencingToken()));
                            }
                            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            Thread.onSpinWait();
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> done : work) {
                done.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(mostInside.get()).as("holders at once").isBetween(1, 2);
        int compared = 0;
        for (PermitGrant later : grants) {
            for (PermitGrant earlier : grants) {
                if (earlier.returnedAt() <= later.calledAfter()) {
                    assertThat(later.token()).as("the token of a call made after a grant of token %d returned",
                            earlier.token()).isGreaterThan(earlier.token());
                    compared++;
                }
            }
        }
        assertThat(compared).as("grants followed by a later call").isPositive();
        assertThat(grants).extracting(PermitGrant::token).hasSize(40).doesNotHaveDuplicates();
    }

    /**
     * One permit grant as its caller saw it.
     *
     * @param calledAfter the events counted before the call was made
     * @param returnedAt the event its return counted
     * @param token its fencing token
     */
    private record PermitGrant(long calledAfter, long returnedAt, long token) {
    }

    @Test
    void callersWhoDisagreeOnThePermitsGetAnErrorNamingBothNumbers() {
        StoreLockService a = node();
        StoreLockService b = node();
        if (!storeOf(a).traits().permits()) {
            assertThatThrownBy(() -> a.lock("pool", LockOptions.defaults().withPermits(3)))
                    .isInstanceOf(LockException.class).hasMessageContaining("does not support permits");
            return;
        }
        try (LockHandle held = a.lock("pool", LockOptions.defaults().withPermits(3))) {
            assertThatThrownBy(() -> b.tryLock("pool", LockOptions.defaults().withPermits(2)))
                    .isInstanceOf(LockException.class).hasMessageContaining("3 permits").hasMessageContaining("2");
            assertThatThrownBy(() -> b.tryLock("pool", LockOptions.defaults().withWaitTime(Duration.ZERO)))
                    .as("a plain lock of a name held with permits").isInstanceOf(LockException.class)
                    .hasMessageContaining("3 permits").hasMessageContaining("asks for 1");
        }
        try (LockHandle plain = a.lock("plain")) {
            assertThatThrownBy(() -> b.tryLock("plain", LockOptions.defaults().withPermits(2)))
                    .isInstanceOf(LockException.class).hasMessageContaining("1 permit,")
                    .hasMessageContaining("asks for 2");
        }
    }

    @Test
    void aPermitWhoseLeaseRanOutIsFreeAgain() {
        StoreLockService crashed = node();
        StoreLockService next = node();
        assumePermits(crashed);
        LockOptions two = LockOptions.defaults().withPermits(2);
        // Never unlocked: a holder that died keeps its permits only until its fixed leases run out.
        crashed.lock("pool-lease", two.withLeaseTime(Duration.ofMillis(800)));
        crashed.lock("pool-lease", two.withLeaseTime(Duration.ofMillis(800)));
        assertThat(next.tryLock("pool-lease", two.withWaitTime(Duration.ZERO))).isEmpty();
        try (LockHandle freed = next.lock("pool-lease", two.withWaitTime(Duration.ofSeconds(10)))) {
            assertThat(freed.isHeld()).isTrue();
        }
    }

    private void assumePermits(StoreLockService node) {
        Assumptions.assumeTrue(storeOf(node).traits().permits(),
                () -> storeOf(node) + " does not support permits yet: permit tests skipped");
    }

    @Test
    void watchdogKeepsTheLockPastSeveralLeases() throws Exception {
        LockConfig shortLease = config().withLeaseTime(Duration.ofMillis(1500));
        StoreLockService a = node(shortLease);
        StoreLockService b = node(shortLease);
        try (LockHandle handle = a.lock("long-work")) {
            Thread.sleep(4800); // the behaviour under test: work that outlasts three leases
            assertThat(handle.isHeld()).isTrue();
            assertThat(b.tryLock("long-work", LockOptions.defaults().withWaitTime(Duration.ZERO))).isEmpty();
            if (storeOf(a).traits().leasesExpire()) {
                assertThat(a.heldLocks()).singleElement()
                        .satisfies(info -> assertThat(info.renewals()).isPositive());
            }
            else {
                // A lease that lasts as long as the store's session (ZooKeeper) is kept without renewal traffic.
                assertThat(a.heldLocks()).singleElement().satisfies(info -> assertThat(info.renewals()).isZero());
                assertThat(storeOf(a).renewals()).isZero();
            }
        }
    }

    @Test
    void lostLeaseIsReportedAndThrownOnUnlockWhenConfigured() {
        StoreLockService a = node(config().withLeaseTime(Duration.ofMillis(600)).withOnLeaseLost(OnLeaseLost.THROW));
        LockHandle handle = a.lock("broken");
        breakLease("broken");
        await().atMost(Duration.ofSeconds(10)).until(() -> !handle.isHeld());
        assertThat(a.heldLocks()).isEmpty();
        assertThatThrownBy(handle::unlock).isInstanceOf(LeaseLostException.class).hasMessageContaining("broken");
        Optional<LockHandle> again = a.tryLock("broken", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)));
        assertThat(again).isPresent();
        again.get().unlock();
    }

    @Test
    void storeDownFailsClosedAndLockingWorksAgainWhenItIsBack() {
        StoreLockService a = node();
        a.lock("warm").unlock();
        stopStore();
        try {
            AtomicBoolean ran = new AtomicBoolean();
            assertThatThrownBy(() -> a.runWithLock("down", () -> ran.set(true)))
                    .isInstanceOf(LockUnavailableException.class);
            assertThat(ran).isFalse();
        }
        finally {
            startStore();
        }
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() -> a.lock("down").unlock());
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

    @Test
    void gracefulShutdownWaitsForRunningWorkAndReleasesWhatIsLeft() throws Exception {
        StoreLockService a = node();
        StoreLockService b = node();
        CountDownLatch working = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Thread work = new Thread(() -> a.runWithLock("draining", () -> {
            working.countDown();
            try {
                finish.await();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }));
        work.start();
        working.await();
        assertThat(a.awaitIdle(Duration.ofMillis(200))).as("the work still runs").isFalse();
        assertThatThrownBy(() -> a.lock("another")).isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("shutting down");
        assertThat(b.tryLock("draining", LockOptions.defaults().withWaitTime(Duration.ZERO)))
                .as("not released under the running work").isEmpty();
        finish.countDown();
        assertThat(a.awaitIdle(Duration.ofSeconds(10))).isTrue();
        work.join();
        LockHandle kept = b.lock("left-over");
        b.close();
        assertThat(kept.isHeld()).isFalse();
        Optional<LockHandle> free = node().tryLock("left-over", LockOptions.defaults().withWaitTime(Duration.ZERO));
        assertThat(free).as("close() released what was left").isPresent();
        free.get().unlock();
    }

    // The clauses of the SPI itself, asked of the store directly (not through the engine).

    @Test
    void theSameOwnerAskingAgainGetsTheSameToken() {
        try (LockStore store = startedStore()) {
            LockRequest request = storeRequest("spi-same-owner", Duration.ofSeconds(30));
            Attempt first = answer(store.attempt(request, Waiting.LAST_TRY));
            Attempt again = answer(store.attempt(request, Waiting.LAST_TRY));
            assertThat(first).isInstanceOf(Attempt.Granted.class);
            assertThat((again instanceof Attempt.Granted)).as("the holder's repeated attempt").isTrue();
            assertThat(((Attempt.Granted) again).fencingToken()).isEqualTo(((Attempt.Granted) first).fencingToken());
            answer(store.release(new StoreLease(request, ((Attempt.Granted) first).fencingToken())));
        }
    }

    @Test
    void renewalsAnswerOnePerLeaseInOrder() {
        try (LockStore store = startedStore()) {
            LockRequest held = storeRequest("spi-renew-held", Duration.ofSeconds(30));
            LockRequest gone = storeRequest("spi-renew-gone", Duration.ofSeconds(30));
            LockRequest other = storeRequest("spi-renew-other", Duration.ofSeconds(30));
            long heldToken = ((Attempt.Granted) answer(store.attempt(held, Waiting.LAST_TRY))).fencingToken();
            long goneToken = ((Attempt.Granted) answer(store.attempt(gone, Waiting.LAST_TRY))).fencingToken();
            long otherToken = ((Attempt.Granted) answer(store.attempt(other, Waiting.LAST_TRY))).fencingToken();
            answer(store.release(new StoreLease(gone, goneToken)));
            List<RenewalResult> results = answer(store.renew(List.of(new StoreLease(held, heldToken),
                    new StoreLease(gone, goneToken), new StoreLease(other, otherToken))));
            assertThat(results).containsExactly(RenewalResult.RENEWED, RenewalResult.LOST, RenewalResult.RENEWED);
            answer(store.release(new StoreLease(held, heldToken)));
            answer(store.release(new StoreLease(other, otherToken)));
        }
    }

    @Test
    void aReleaseByAnotherOwnerIsExpiredAndLeavesTheHolder() {
        try (LockStore store = startedStore()) {
            LockRequest holder = storeRequest("spi-foreign", Duration.ofSeconds(30));
            LockRequest stranger = storeRequest("spi-foreign", Duration.ofSeconds(30));
            long token = ((Attempt.Granted) answer(store.attempt(holder, Waiting.LAST_TRY))).fencingToken();
            assertThat(answer(store.release(new StoreLease(stranger, token)))).isEqualTo(ReleaseResult.EXPIRED);
            assertThat((answer(store.attempt(stranger, Waiting.LAST_TRY)) instanceof Attempt.Granted)).as("still held").isFalse();
            answer(store.cancel(stranger));
            assertThat(answer(store.release(new StoreLease(holder, token)))).isEqualTo(ReleaseResult.RELEASED);
        }
    }

    @Test
    void cancelNeverThrowsAndFreesWhatTheRequestHeld() {
        try (LockStore store = startedStore()) {
            LockRequest never = storeRequest("spi-cancel-never", Duration.ofSeconds(30));
            assertThatCode(() -> answer(store.cancel(never))).as("a request the store never saw")
                    .doesNotThrowAnyException();
            LockRequest holder = storeRequest("spi-cancel-held", Duration.ofSeconds(30));
            assertThat((answer(store.attempt(holder, Waiting.LAST_TRY)) instanceof Attempt.Granted)).isTrue();
            answer(store.cancel(holder));
            LockRequest next = storeRequest("spi-cancel-held", Duration.ofSeconds(30));
            Attempt taken = answer(store.attempt(next, Waiting.LAST_TRY));
            assertThat((taken instanceof Attempt.Granted)).as("cancel undid the hold").isTrue();
            answer(store.release(new StoreLease(next, ((Attempt.Granted) taken).fencingToken())));
        }
        LockStore down = startedStore();
        stopStore();
        try {
            assertThatCode(() -> down.cancel(storeRequest("spi-cancel-down", Duration.ofSeconds(30))))
                    .as("cancel while the store is down").doesNotThrowAnyException();
        }
        finally {
            startStore();
            down.close();
        }
    }

    @Test
    void anAttemptWhoseAnswerCameTooLateIsUndone() throws Exception {
        CompletableFuture<Void> answerHeldBack = new CompletableFuture<>();
        LockStore slow = new ForwardingLockStore(newStore()) {
            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
                // The store grants at once; the answer reaches the engine only after it gave up waiting.
                return super.attempt(request, waiting).thenCombine(answerHeldBack,
                        (attempt, released) -> attempt);
            }
        };
        StoreLockService late = new StoreLockService(slow, config().withCommandTimeout(Duration.ofMillis(200)),
                history.listener());
        late.start();
        try {
            assertThatThrownBy(() -> late.tryLock("spi-late", LockOptions.defaults().withWaitTime(Duration.ZERO)))
                    .isInstanceOf(LockUnavailableException.class).hasMessageContaining("distlock.command-timeout");
            answerHeldBack.complete(null);
            // Undone after the answer arrived, not at the end of the 30 s lease.
            Optional<LockHandle> next = node().tryLock("spi-late", LockOptions.defaults()
                    .withWaitTime(Duration.ofSeconds(10)));
            assertThat(next).as("the late grant was undone").isPresent();
            next.get().unlock();
        }
        finally {
            late.close();
        }
    }

    private LockStore startedStore() {
        LockStore store = newStore();
        store.start(StoreEvents.NONE);
        return store;
    }

    private static LockRequest storeRequest(String name, Duration lease) {
        return new LockRequest(name, LockType.REENTRANT, UUID.randomUUID().toString(), Duration.ZERO, lease, true);
    }

    private static <T> T answer(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        catch (ExecutionException | TimeoutException ex) {
            throw new IllegalStateException("The store did not answer", ex);
        }
    }

    /** A lease as the engine hands it to the store. */
    private record StoreLease(LockRequest request, long fencingToken) implements Lease {
    }
}
