package dev.distlock.etcd;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.FaultProxy;
import dev.distlock.test.support.LockHistory;
import dev.distlock.test.support.LockLoad;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Faults of a real three-member etcd cluster, every grant recorded and the history checked: the leader dies, the
 * quorum is lost, a holder's keep-alives stop reaching etcd. (A killed holder JVM is distlock-test-support's
 * HolderCrashContractTests, on this module's fixture.) The cluster is shared by the tests and healed after each.
 */
class EtcdFaultTests {

    private static final Logger log = LoggerFactory.getLogger(EtcdFaultTests.class);

    private static final String PREFIX = "faults";

    static EtcdTestCluster cluster;

    private final LockHistory history = new LockHistory();

    private final EtcdNodes nodes = new EtcdNodes();

    private final AtomicInteger lost = new AtomicInteger();

    private final AtomicLong lostAt = new AtomicLong();

    private final LockListener listener = CompositeLockListener.of(List.of(history.listener(), new LockListener() {
        @Override
        public void leaseLost(LockHandle handle) {
            lostAt.compareAndSet(0, System.nanoTime());
            lost.incrementAndGet();
        }
    }));

    @BeforeAll
    static void startCluster() {
        cluster = EtcdTestCluster.start(3);
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @AfterEach
    void closeNodesAndHeal() {
        nodes.close();
        for (int i = 0; i < cluster.size(); i++) {
            if (!cluster.running(i)) {
                cluster.startMember(i);
            }
        }
        await().atMost(Duration.ofSeconds(30)).ignoreExceptions().until(() -> cluster.leader() >= 0);
    }

    /** A node with a 5 s command timeout: a busy machine must not fail these tests' calls closed. */
    private StoreLockService node(List<String> endpoints, Duration lease) {
        return node(endpoints, lease, Duration.ofSeconds(5));
    }

    private StoreLockService node(List<String> endpoints, Duration lease, Duration commandTimeout) {
        return nodes.node(EtcdLockConfig.defaults().withEndpoints(endpoints).withKeyPrefix(PREFIX)
                .withCommandTimeout(commandTimeout), LockConfig.defaults().withWaitTime(Duration.ofSeconds(10))
                .withLeaseTime(lease), listener);
    }

    @Test
    void killingTheLeaderKeepsLockingGoingWithIncreasingTokens() throws Exception {
        StoreLockService a = node(cluster.endpoints(), Duration.ofSeconds(5));
        StoreLockService b = node(cluster.endpoints(), Duration.ofSeconds(5));
        int leader;
        long killed;
        try (LockLoad load = new LockLoad(history, "failover", 2, a, b)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> load.grants() >= 30);
            leader = cluster.leader();
            killed = System.nanoTime();
            cluster.kill(leader);
            int atKill = load.grants();
            await().atMost(Duration.ofSeconds(40)).until(() -> load.grants() >= atKill + 30);
            log.info("Leader killed: {} calls failed closed, {} timed out, {} grants in all", load.unavailable(),
                    load.timeouts(), load.grants());
        }
        long recovered = history.grants().stream().mapToLong(LockHistory.Grant::startNanos)
                .filter(start -> start > killed).min().orElseThrow();
        log.info("Leader killed: first grant {} ms later", TimeUnit.NANOSECONDS.toMillis(recovered - killed));
        int newLeader = await().atMost(Duration.ofSeconds(20)).ignoreExceptions().until(cluster::leader,
                index -> index >= 0);
        assertThat(newLeader).as("a new leader").isNotEqualTo(leader);
        history.assertConsistent();
    }

    @Test
    void losingTheQuorumFailsClosedWithinTheCommandTimeoutAndLockingComesBack() {
        StoreLockService a = node(cluster.endpoints(), Duration.ofSeconds(30), Duration.ofSeconds(1));
        a.lock("quorum").unlock();
        int leader = cluster.leader();
        List<Integer> two = List.of(leader, (leader + 1) % 3);
        two.forEach(cluster::stop);
        AtomicBoolean ran = new AtomicBoolean();
        long start = System.nanoTime();
        assertThatThrownBy(() -> a.runWithLock("quorum", () -> ran.set(true)))
                .isInstanceOf(LockUnavailableException.class);
        Duration failedAfter = Duration.ofNanos(System.nanoTime() - start);
        assertThat(failedAfter).as("bounded by distlock.command-timeout (1 s)").isLessThan(Duration.ofMillis(2500));
        assertThat(ran).isFalse();
        assertThat(a.storeHealth(Duration.ofMillis(500)).up()).isFalse();
        two.forEach(cluster::startMember);
        long back = System.nanoTime();
        await().atMost(Duration.ofSeconds(40)).ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .untilAsserted(() -> a.lock("quorum").unlock());
        log.info("Quorum lost: failed closed after {} ms; locking again {} ms after the members were back",
                failedAfter.toMillis(), TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - back));
    }

    @Test
    void aHolderWhoseKeepAlivesAreCutIsToldBeforeAnotherNodeCanHold() throws Exception {
        int member = 0;
        try (FaultProxy proxy = FaultProxy.start("etcd-m0", URI.create(cluster.endpoint(member)).getPort())) {
            StoreLockService a = node(List.of("http://127.0.0.1:" + proxy.port()), Duration.ofSeconds(2));
            StoreLockService b = node(cluster.endpoints(), Duration.ofSeconds(2));
            LockHandle held = a.lock("cut");
            CompletableFuture<LockHandle> next = CompletableFuture.supplyAsync(() -> b.lock("cut",
                    LockOptions.defaults().withWaitTime(Duration.ofSeconds(30))));
            await().atMost(Duration.ofSeconds(5)).until(() -> nodes.counts(b).attempts() >= 1);
            history.hold("a", held, () -> {
                proxy.drop(); // the keep-alives (and everything else) of node a reach etcd no more
                await().atMost(Duration.ofSeconds(10)).until(() -> !held.isHeld());
            });
            LockHandle taken = next.get(20, TimeUnit.SECONDS);
            long grantedAt = System.nanoTime();
            history.hold("b", taken, () -> assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken()));
            taken.unlock();
            assertThat(lost.get()).isEqualTo(1);
            assertThat(lostAt.get()).as("a was told before b held").isLessThan(grantedAt);
            log.info("Keep-alives cut: a told {} ms before b held the lock",
                    TimeUnit.NANOSECONDS.toMillis(grantedAt - lostAt.get()));
            history.assertConsistent();
            proxy.pass();
        }
    }

    /**
     * Review 4, F4: node a holds three fixed-lease jobs and is cut off from etcd. The first two expire and their
     * deletes cannot reach etcd; the third still stops counting at its own deadline, so node a no longer counts on it
     * when etcd lets node b in (before, the third's expiry waited behind the hanging deletes on the engine's two
     * scheduler threads, and node a's handle said held for seconds after node b was granted).
     */
    @Test
    void aCutOffHolderStopsCountingOnAFixedLeaseBeforeAnotherNodeIsGrantedIt() throws Exception {
        int member = 0;
        try (FaultProxy proxy = FaultProxy.start("etcd-m0", URI.create(cluster.endpoint(member)).getPort())) {
            StoreLockService a = node(List.of("http://127.0.0.1:" + proxy.port()), Duration.ofSeconds(30),
                    Duration.ofSeconds(2));
            StoreLockService b = node(cluster.endpoints(), Duration.ofSeconds(30));
            LockOptions shortLease = LockOptions.defaults().withLeaseTime(Duration.ofMillis(2500));
            a.lock("job-1", shortLease);
            a.lock("job-2", shortLease);
            LockHandle third = a.lock("job-3", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(3)));
            proxy.drop(); // node a reaches etcd no more: its deletes at the first two expiries hang

            LockHandle taken = b.lock("job-3", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)));
            boolean aStillCountedOnIt = third.isHeld();
            assertThat(aStillCountedOnIt).as("node a counts on job-3 when node b is granted it").isFalse();
            assertThat(taken.fencingToken()).isGreaterThan(third.fencingToken());
            taken.unlock();
            proxy.pass();
        }
    }
}
