package dev.distlock.ha;

import java.time.Duration;
import java.util.List;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;
import dev.distlock.embedded.ClusterSlots;
import dev.distlock.embedded.RedisClusterTopology;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisTopologies;
import dev.distlock.test.support.LockHistory;
import dev.distlock.test.support.LockLoad;
import io.micrometer.core.instrument.MeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Replica acknowledgement on a real Redis Cluster (three masters with one replica each): the {@code WAIT} must go
 * out on the connection that carried the lock write, or it acknowledges nothing. Replicas are frozen (SIGSTOP), not
 * cut off, so their masters keep listing them as connected, as after a real freeze.
 */
class ClusterReplicaAcknowledgementTests {

    static RedisClusterTopology cluster;

    private final LockHistory history = new LockHistory();

    @BeforeAll
    static void startCluster() {
        cluster = RedisTopologies.sharedCluster();
    }

    @AfterEach
    void heal() {
        cluster.heal();
    }

    /** No periodic topology refresh, so that a node keeps a stale slot map after a slot moved (the MOVED case). */
    private ApplicationContextRunner runner(String... properties) {
        return HaApplications.node(history)
                .withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.clusterNodes(),
                        "distlock.key-prefix=ca", "distlock.replication.timeout=300ms")
                .withPropertyValues(properties);
    }

    private static void assertNotRunUnacknowledged(LockService node, String name, String expectedMessage) {
        boolean[] ran = { false };
        assertThatThrownBy(() -> node.runWithLock(name, () -> ran[0] = true))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining(expectedMessage);
        assertThat(ran[0]).as("the locked action ran without a replica acknowledgement").isFalse();
    }

    private static long waitCalls(List<RedisServerProcess> masters) {
        long total = 0;
        for (RedisServerProcess master : masters) {
            java.util.regex.Matcher calls = java.util.regex.Pattern.compile("cmdstat_wait:calls=(\\d+)")
                    .matcher(String.valueOf(master.call("INFO", "commandstats")));
            if (calls.find()) {
                total += Long.parseLong(calls.group(1));
            }
        }
        return total;
    }

    @Test
    void withOneReplicaAndEveryReplicaFrozenTheLockedActionDoesNotRun() {
        runner("distlock.replication.min-replicas=1").run(a -> {
            LockService nodeA = a.getBean(LockService.class);
            LockLoad.warmUp(nodeA);
            cluster.replicas().forEach(RedisServerProcess::pause);
            for (int i = 0; i < 3; i++) {
                assertNotRunUnacknowledged(nodeA, "unconfirmed-" + i, "distlock.replication.min-replicas=1");
            }
        });
    }

    @Test
    void byDefaultWithEveryReplicaFrozenTheLockedActionDoesNotRun() {
        runner().run(a -> {
            LockService nodeA = a.getBean(LockService.class);
            LockLoad.warmUp(nodeA);
            cluster.replicas().forEach(RedisServerProcess::pause);
            for (int i = 0; i < 3; i++) {
                assertNotRunUnacknowledged(nodeA, "unconfirmed-default-" + i, "distlock.replication.min-replicas=auto");
            }
        });
    }

    @Test
    void byDefaultAnAcquireOnEveryShardIsAcknowledged() {
        runner().run(a -> {
            LockService nodeA = a.getBean(LockService.class);
            LockLoad.warmUp(nodeA);
            List<RedisServerProcess> masters = cluster.masters();
            long before = waitCalls(masters);
            int ran = 0;
            for (int i = 0; i < 30; i++) {
                LockHandle handle = nodeA.lock("acknowledged-" + i);
                ran++;
                handle.unlock();
            }
            assertThat(ran).isEqualTo(30);
            assertThat(waitCalls(masters) - before).as("one WAIT per acquire, on the master that took the write")
                    .isGreaterThanOrEqualTo(30);
        });
    }

    @Test
    void byDefaultAnUnacknowledgedRenewalIsAFailedRenewalSoTheLossIsReportedWithinALease() {
        Duration lease = Duration.ofSeconds(3);
        runner("distlock.lease-time=" + lease.toMillis() + "ms").run(a -> {
            LockService nodeA = a.getBean(LockService.class);
            LockLoad.warmUp(nodeA);
            LockHandle held = nodeA.lock("renewed-unacknowledged");
            cluster.replicas().forEach(RedisServerProcess::pause);
            MeterRegistry meters = a.getBean(MeterRegistry.class);
            await().atMost(lease.plusSeconds(2))
                    .until(() -> meters.get("distlock.lease.lost").counter().count() == 1);
            assertThat(held.isHeld()).isFalse();
            held.unlock();
        });
    }

    @Test
    void aSlotMovedDuringTheAcquireIsUnacknowledgedAndTheActionDoesNotRun() {
        String name = "moved";
        String key = "ca:{" + name + "}";
        int slot = ClusterSlots.slot(key);
        runner("distlock.replication.min-replicas=1").run(a -> {
            LockService nodeA = a.getBean(LockService.class);
            LockLoad.warmUp(nodeA); // the node's slot map is loaded now, and stays stale (no refresh)
            RedisServerProcess source = cluster.masterOf(slot);
            RedisServerProcess target = cluster.masters().stream().filter(master -> !master.equals(source))
                    .findFirst().orElseThrow();
            source.call("DEL", key);
            moveSlot(slot, source, target);
            try {
                // The write is redirected to the new owner; every replica is frozen, so nothing may acknowledge it.
                cluster.replicas().forEach(RedisServerProcess::pause);
                assertNotRunUnacknowledged(nodeA, name, "");
                cluster.replicas().forEach(RedisServerProcess::resume);
                // With the replicas back, the node finds the slot's new owner and is acknowledged there.
                boolean[] ran = { false };
                await().atMost(Duration.ofSeconds(10)).ignoreExceptionsInstanceOf(LockUnavailableException.class)
                        .untilAsserted(() -> {
                            nodeA.runWithLock(name, () -> ran[0] = true);
                            assertThat(ran[0]).isTrue();
                        });
                io.micrometer.core.instrument.Counter lost = a.getBean(MeterRegistry.class)
                        .find("distlock.lease.lost").counter();
                assertThat(lost == null ? 0 : lost.count()).isZero();
            }
            finally {
                cluster.replicas().forEach(RedisServerProcess::resume);
                moveSlot(slot, target, source);
            }
        });
    }

    private static void moveSlot(int slot, RedisServerProcess from, RedisServerProcess to) {
        new ClusterNodes(cluster, "ca").moveSlot(slot, from, to);
    }
}
