package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.LockHistory;
import dev.distlock.test.support.LockLoad;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.zookeeper.ZooKeeper;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Faults of a real three-server ensemble, every grant recorded and the history checked: the leader dies, the
 * quorum is lost, a holder's session expires. The ensemble is shared by the tests and healed after each.
 */
class EnsembleFaultTests {

    private static final String BASE = "/faults";

    static TestingCluster cluster;

    private final LockHistory history = new LockHistory();

    private final ZooKeeperNodes nodes = new ZooKeeperNodes();

    private final AtomicInteger lost = new AtomicInteger();

    private final LockListener listener = CompositeLockListener.of(List.of(history.listener(), new LockListener() {
        @Override
        public void leaseLost(LockHandle handle) {
            lost.incrementAndGet();
        }
    }));

    @BeforeAll
    static void startEnsemble() {
        cluster = ZooKeeperServers.cluster(3);
    }

    @AfterAll
    static void stopEnsemble() throws Exception {
        cluster.close();
    }

    @AfterEach
    void closeNodesAndHeal() throws Exception {
        nodes.close();
        for (InstanceSpec spec : cluster.getInstances()) {
            if (ZooKeeperServers.mode(spec).equals("down")) {
                cluster.restartServer(spec);
            }
        }
        // The next test starts on a whole ensemble: every server leads or follows again.
        await().atMost(Duration.ofSeconds(30)).until(() -> cluster.getInstances().stream()
                .map(ZooKeeperServers::mode).allMatch(mode -> mode.equals("leader") || mode.equals("follower")));
    }

    private StoreLockService node(Duration sessionTimeout) {
        return nodes.node(ZooKeeperServers.config(cluster.getConnectString(), BASE).withSessionTimeout(sessionTimeout)
                .withCommandTimeout(Duration.ofSeconds(1)), listener);
    }

    private static InstanceSpec leader() {
        return await().atMost(Duration.ofSeconds(20)).until(() -> cluster.getInstances().stream()
                .filter(spec -> ZooKeeperServers.mode(spec).equals("leader")).findFirst().orElse(null),
                spec -> spec != null);
    }

    @Test
    void killingTheLeaderKeepsLockingGoingWithIncreasingTokens() throws Exception {
        StoreLockService a = node(Duration.ofSeconds(5));
        StoreLockService b = node(Duration.ofSeconds(5));
        InstanceSpec leader;
        long maxTokenAtKill;
        try (LockLoad load = new LockLoad(history, "failover", 2, a, b)) {
            await().atMost(Duration.ofSeconds(20)).until(() -> load.grants() >= 30);
            leader = leader();
            cluster.killServer(leader);
            int atKill = load.grants();
            maxTokenAtKill = history.grants().stream().mapToLong(LockHistory.Grant::fencingToken).max()
                    .orElseThrow();
            await().atMost(Duration.ofSeconds(40)).until(() -> load.grants() >= atKill + 30);
        }
        assertThat(leader()).as("a new leader").isNotEqualTo(leader);
        assertThat(history.grants().get(history.grants().size() - 1).fencingToken())
                .as("tokens after the failover (new epoch)").isGreaterThan(maxTokenAtKill);
        history.assertConsistent();
    }

    @Test
    void losingTheQuorumFailsClosedWithinTheCommandTimeoutAndLockingComesBack() throws Exception {
        StoreLockService a = node(Duration.ofSeconds(3));
        a.lock("quorum").unlock();
        List<InstanceSpec> two = cluster.getInstances().stream().limit(2).toList();
        for (InstanceSpec spec : two) {
            cluster.killServer(spec);
        }
        AtomicBoolean ran = new AtomicBoolean();
        long start = System.nanoTime();
        assertThatThrownBy(() -> a.runWithLock("quorum", () -> ran.set(true)))
                .isInstanceOf(LockUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).as("bounded by distlock.command-timeout (1 s)")
                .isLessThan(Duration.ofMillis(2500));
        assertThat(ran).isFalse();
        assertThat(a.storeHealth(Duration.ofMillis(500)).up()).isFalse();
        for (InstanceSpec spec : two) {
            cluster.restartServer(spec);
        }
        await().atMost(Duration.ofSeconds(40)).ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .untilAsserted(() -> a.lock("quorum").unlock());
    }

    @Test
    void anExpiredHolderSessionIsReportedLostAndAnotherNodeGetsTheLock() throws Exception {
        StoreLockService a = node(Duration.ofSeconds(3));
        StoreLockService b = node(Duration.ofSeconds(3));
        LockHandle held = a.lock("expiring");
        CountDownLatch bHolds = new CountDownLatch(1);
        CompletableFuture<Long> next = CompletableFuture.supplyAsync(() -> {
            try (LockHandle handle = b.lock("expiring", LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)))) {
                bHolds.countDown();
                return history.hold("b", handle, handle::fencingToken);
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> nodes.counts(b).attempts() >= 1);
        ZooKeeper holderSession = nodes.store(a).client().getZookeeperClient().getZooKeeper();
        history.hold("a", held, () -> {
            expireSession(holderSession);
            await().atMost(Duration.ofSeconds(10)).until(() -> !held.isHeld());
        });
        assertThat(next.get(15, TimeUnit.SECONDS)).isGreaterThan(held.fencingToken());
        await().atMost(Duration.ofSeconds(10)).until(() -> lost.get() == 1);
        assertThat(a.heldLocks()).isEmpty();
        assertThat(history.lostLeases()).isEqualTo(1);
        history.assertConsistent();
        held.unlock(); // reported (expired), not thrown with on-lease-lost=log
        assertThat(a.tryLock("expiring", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)))).isPresent()
                .get().satisfies(LockHandle::unlock);
    }

    /** Ends a session on the server, as its expiry does: a second handle on the same session closes it. */
    private static void expireSession(ZooKeeper zk) {
        try {
            CountDownLatch connected = new CountDownLatch(1);
            ZooKeeper twin = new ZooKeeper(cluster.getConnectString(), 3000, event -> {
                if (event.getState() == org.apache.zookeeper.Watcher.Event.KeeperState.SyncConnected) {
                    connected.countDown();
                }
            }, zk.getSessionId(), zk.getSessionPasswd());
            assertThat(connected.await(10, TimeUnit.SECONDS)).isTrue();
            twin.close();
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }
}
