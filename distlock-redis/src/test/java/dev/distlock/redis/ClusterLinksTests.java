package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.FaultProxy;
import dev.distlock.test.support.campaign.CampaignTopology;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The campaign's Cluster topology really puts each node's traffic through its own proxies, although the nodes learn
 * the servers' addresses from the cluster: a node cut off from one shard's master fails closed on that shard's
 * locks, while it goes on with the other shards and the other nodes go on with that shard. Without the address
 * mapping in the node's spec, the client would reach the master directly and the partition would change nothing.
 * And a shard failed over under partition: a holder cut off from its shard's master, which is then killed, is told
 * of its loss before the promoted replica grants the lock to another node.
 * <p>
 * Part of the fault campaign: it runs with {@code -Dcampaign} only (with the campaign, in CI's campaign pass).
 */
@EnabledIfSystemProperty(named = "campaign", matches = ".*", disabledReason = "the fault campaign runs with -Dcampaign")
class ClusterLinksTests {

    private static final LockOptions NO_WAIT = LockOptions.defaults().withWaitTime(Duration.ZERO);

    private static ClusterTopology topology;

    private final List<StoreLockService> services = new ArrayList<>();

    private final List<CampaignTopology.Opened> opened = new ArrayList<>();

    @BeforeAll
    static void startCluster() {
        topology = new ClusterTopology();
    }

    @AfterAll
    static void stopCluster() {
        topology.close();
    }

    @AfterEach
    void closeNodes() {
        services.forEach(StoreLockService::close);
        opened.forEach(CampaignTopology.Opened::closeResources);
        topology.heal();
    }

    /** A campaign node, opened from its spec as the campaign opens it. */
    private StoreLockService node(String name) {
        return node(name, LockListener.NONE);
    }

    private StoreLockService node(String name, LockListener listener) {
        CampaignTopology.Opened store = new RedisCampaignTopologies().open(topology.spec(name)).orElseThrow();
        opened.add(store);
        StoreLockService service = new StoreLockService(store.store(), LockConfig.defaults()
                .withLeaseTime(Duration.ofSeconds(2)).withWaitTime(Duration.ofSeconds(3))
                .withCommandTimeout(CampaignTopology.COMMAND_TIMEOUT), listener);
        service.start();
        services.add(service);
        return service;
    }

    /** A lock name whose key ({@code campaign:{name}}) lives on the shard of that master. */
    private static String nameOn(RedisServerProcess master, String prefix) {
        for (int i = 0;; i++) {
            String name = prefix + i;
            if (topology.cluster().masterFor(CampaignTopology.KEY_PREFIX + ":{" + name + "}").port() == master
                    .port()) {
                return name;
            }
        }
    }

    private static FaultProxy proxy(String node, RedisServerProcess server) {
        return topology.links().of(node).stream().filter(proxy -> proxy.targetPort() == server.port()).findFirst()
                .orElseThrow();
    }

    @Test
    void aNodeCutOffFromOneShardsMasterFailsClosedOnThatShardOnly() {
        StoreLockService cutOff = node("node-0");
        StoreLockService other = node("node-1");
        List<RedisServerProcess> masters = topology.cluster().masters();
        String onCutShard = nameOn(masters.get(0), "cut-");
        String onOtherShard = nameOn(masters.get(1), "other-");
        // The first call also opens the node's connections (slow on a busy machine).
        await("node-0 granted before the partition").atMost(Duration.ofSeconds(20))
                .ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> cutOff.tryLock(onCutShard, NO_WAIT), Optional::isPresent).orElseThrow().unlock();
        FaultProxy link = proxy("node-0", masters.get(0));
        assertThat(link.connections()).as("node-0 reaches the master through its own proxy").isPositive();

        link.drop();
        assertThatThrownBy(() -> cutOff.tryLock(onCutShard, NO_WAIT))
                .as("node-0 cannot reach the shard's master: it fails closed")
                .isInstanceOf(LockUnavailableException.class);
        try (LockHandle elsewhere = cutOff.tryLock(onOtherShard, NO_WAIT).orElseThrow()) {
            assertThat(elsewhere.isHeld()).as("node-0 goes on with another shard").isTrue();
        }
        try (LockHandle byTheOther = other.tryLock(onCutShard, NO_WAIT).orElseThrow()) {
            assertThat(byTheOther.isHeld()).as("node-1 goes on with the cut shard").isTrue();
        }

        link.pass();
        LockHandle again = await("node-0 granted on the shard once the partition healed")
                .atMost(Duration.ofSeconds(20)).ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> cutOff.tryLock(onCutShard, NO_WAIT), Optional::isPresent).orElseThrow();
        again.unlock();
    }

    /**
     * The campaign's {@code FAILOVER_UNDER_PARTITION} with a holder: node-0 holds a lock of shard 0 when it is cut off
     * from that shard's master, which is then killed and failed over. node-1 is granted the lock on the promoted
     * replica once its key expired there; node-0, whose renewals got no answer, must have been told before.
     */
    @Test
    void aHolderCutOffFromItsShardsFailedOverMasterIsToldBeforeTheLockIsGrantedAgain() {
        LossClock lossClock = new LossClock();
        StoreLockService holder = node("node-0", lossClock);
        StoreLockService other = node("node-1");
        RedisServerProcess master = topology.cluster().masters().get(0);
        String name = nameOn(master, "failover-");
        LockHandle held = holder.tryLock(name, NO_WAIT).orElseThrow();

        proxy("node-0", master).drop();
        topology.cluster().killMaster(0);
        RedisServerProcess promoted = topology.cluster().awaitFailover(Duration.ofSeconds(30));
        assertThat(promoted.port()).isNotEqualTo(master.port());
        // The old master comes back as the promoted one's replica (node-0 stays cut off from it), as the campaign's
        // heal brings it back: until then the promoted master has no replica to acknowledge a grant, and with
        // min-replicas=1 every node fails closed on the shard.
        topology.cluster().heal();
        LockHandle taken = await("node-1 granted the lock on the promoted replica").atMost(Duration.ofSeconds(30))
                .ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> other.tryLock(name, LockOptions.defaults().withWaitTime(Duration.ofSeconds(1))),
                        Optional::isPresent)
                .orElseThrow();
        long grantedToOther = System.nanoTime();

        assertThat(held.isHeld()).as("node-0 no longer counts on the lock").isFalse();
        assertThat(lossClock.get()).as("node-0 was told of the loss").isPositive();
        assertThat(lossClock.get()).as("node-0 was told before node-1 was granted the lock")
                .isLessThan(grantedToOther);
        assertThat(taken.fencingToken()).isGreaterThan(held.fencingToken());
        taken.unlock();
    }
}
