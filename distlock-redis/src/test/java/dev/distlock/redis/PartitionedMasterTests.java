package dev.distlock.redis;

import dev.distlock.core.LockConfig;
import dev.distlock.test.support.campaign.CampaignTopology;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.FaultProxy;
import io.lettuce.core.internal.HostAndPort;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DnsResolvers;
import io.lettuce.core.resource.MappingSocketAddressResolver;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Review §6: a network partition {old master + holder} | {replicas + Sentinels + another node}, with
 * {@code distlock.replication.min-replicas=1}. The Sentinels promote a replica on their side; the other node is
 * granted the lock there once the lock's key expired on it. The holder, still connected to the old master, must
 * have been told its lease was lost before that: a renewal that no replica acknowledges is a failed renewal.
 * <p>
 * The partition is made with {@link FaultProxy proxies}: every data server is reached by the replicas, the
 * Sentinels and node B through its proxy ({@link ProxiedSentinel}); node A (the holder) reaches the servers and the
 * Sentinels through proxies of its own (a Lettuce address mapping sends the Sentinels' answers to A's proxies). The
 * majority side's connections to the old master are reset and new ones refused; A's links to everything but the
 * old master are blackholed.
 * <p>
 * Part of the fault campaign: it runs with {@code -Dcampaign} only (as the campaign, in CI's campaign pass), and is
 * skipped, saying so, in {@code ./mvnw verify}.
 */
@EnabledIfSystemProperty(named = "campaign", matches = ".*", disabledReason = "the fault campaign runs with -Dcampaign")
class PartitionedMasterTests {

    private static final Logger log = LoggerFactory.getLogger(PartitionedMasterTests.class);

    private static final Duration LEASE = Duration.ofSeconds(3);

    private ProxiedSentinel topology;

    private final List<FaultProxy> holderProxies = new ArrayList<>();

    private final List<AutoCloseable> resources = new ArrayList<>();

    @BeforeEach
    void start() {
        topology = new ProxiedSentinel();
    }

    @AfterEach
    void stop() throws Exception {
        for (int i = resources.size() - 1; i >= 0; i--) {
            resources.get(i).close();
        }
        holderProxies.forEach(FaultProxy::close);
        topology.close();
    }

    /** Node A: its own proxy to every data server and every Sentinel; Sentinel's answers mapped onto them. */
    private StoreLockService holder(Map<Integer, FaultProxy> byServerProxyPort, List<FaultProxy> sentinelProxies,
            LockListener listener) {
        MappingSocketAddressResolver resolver = MappingSocketAddressResolver.create(DnsResolvers.UNRESOLVED,
                address -> {
                    FaultProxy own = byServerProxyPort.get(address.getPort());
                    return own == null ? address : HostAndPort.of("127.0.0.1", own.port());
                });
        ClientResources resources = ClientResources.builder().socketAddressResolver(resolver).build();
        this.resources.add(() -> resources.shutdown());
        RedisSentinelConfiguration sentinel = new RedisSentinelConfiguration();
        sentinel.master(ProxiedSentinel.MASTER_NAME);
        sentinelProxies.forEach(proxy -> sentinel.addSentinel(new RedisNode("127.0.0.1", proxy.port())));
        return node(sentinel, LettuceClientConfiguration.builder().clientResources(resources)
                .commandTimeout(Duration.ofSeconds(5)).build(), listener);
    }

    /** Node B: the Sentinels and the servers as everyone else reaches them. */
    private StoreLockService other() {
        RedisSentinelConfiguration sentinel = new RedisSentinelConfiguration();
        sentinel.master(ProxiedSentinel.MASTER_NAME);
        topology.sentinels().forEach(s -> sentinel.addSentinel(new RedisNode("127.0.0.1", s.port())));
        return node(sentinel, LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build(),
                LockListener.NONE);
    }

    private StoreLockService node(RedisSentinelConfiguration sentinel, LettuceClientConfiguration client,
            LockListener listener) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(sentinel, client);
        factory.afterPropertiesSet();
        factory.start();
        resources.add(factory::destroy);
        StoreLockService service = new StoreLockService(new RedisLockStore(factory, RedisLockConfig.defaults()
                .withKeyPrefix("partition").withCommandTimeout(Duration.ofSeconds(1))
                .withReplication(1, Duration.ofSeconds(1))), LockConfig.defaults()
                        .withLeaseTime(LEASE).withWaitTime(Duration.ofSeconds(3))
                        .withCommandTimeout(CampaignTopology.COMMAND_TIMEOUT), listener);
        service.start();
        resources.add(service);
        return service;
    }

    /**
     * Failed before renewals were acknowledged by a replica (the replication fix): the holder renewed on the isolated
     * old master, unreported, while node B was granted the lock on the promoted replica.
     */
    @Test
    void theIsolatedHolderIsToldItsLeaseIsLostBeforeTheOtherSideGrantsTheLock() {
        partitionTheMasterWithTheHolder();
    }

    /**
     * The server-side guard, for deployments that set it: with {@code min-replicas-to-write 1} and
     * {@code min-replicas-max-lag 1} the isolated master refuses the holder's renewals once its replicas are gone
     * for a second, so the holder is told in time whatever the client does.
     */
    @Test
    void withMinReplicasToWriteOnTheServersTheIsolatedHolderIsToldInTime() {
        for (var server : topology.servers()) {
            server.call("CONFIG", "SET", "min-replicas-to-write", "1");
            server.call("CONFIG", "SET", "min-replicas-max-lag", "1");
        }
        partitionTheMasterWithTheHolder();
    }

    private void partitionTheMasterWithTheHolder() {
        Map<Integer, FaultProxy> byServerProxyPort = new HashMap<>();
        for (int i = 0; i < 3; i++) {
            FaultProxy own = FaultProxy.start("node-a -> redis-" + i, topology.servers().get(i).port());
            holderProxies.add(own);
            byServerProxyPort.put(topology.proxies().get(i).port(), own);
        }
        List<FaultProxy> sentinelProxies = new ArrayList<>();
        for (var sentinel : topology.sentinels()) {
            FaultProxy own = FaultProxy.start("node-a -> sentinel " + sentinel.port(), sentinel.port());
            holderProxies.add(own);
            sentinelProxies.add(own);
        }
        LossClock lossClock = new LossClock();
        StoreLockService nodeA = holder(byServerProxyPort, sentinelProxies, lossClock);
        StoreLockService nodeB = other();

        int oldMaster = topology.agreedMaster();
        LockHandle held = nodeA.lock("partitioned");
        FaultProxy holderToOldMaster = byServerProxyPort.get(topology.proxies().get(oldMaster).port());
        assertThat(holderToOldMaster.connections()).as("node A reaches the master through its own proxy")
                .isPositive();
        assertThat(nodeB.tryLock("partitioned", LockOptions.defaults().withWaitTime(Duration.ZERO))).isEmpty();

        // The partition: {old master + A} | {replicas + Sentinels + B}.
        long partitioned = System.nanoTime();
        FaultProxy oldMasterForEveryone = topology.proxies().get(oldMaster);
        oldMasterForEveryone.refuse();
        oldMasterForEveryone.resetConnections();
        for (FaultProxy proxy : holderProxies) {
            if (proxy != holderToOldMaster) {
                proxy.drop();
            }
        }
        int promoted = topology.awaitFailover(oldMaster, Duration.ofSeconds(30));
        log.info("Partition: redis-{} isolated with node A, redis-{} promoted after {} ms", oldMaster, promoted,
                (System.nanoTime() - partitioned) / 1_000_000);

        LockHandle taken = await("node B granted the lock on the promoted replica").atMost(Duration.ofSeconds(40))
                .ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .until(() -> nodeB.tryLock("partitioned", LockOptions.defaults().withWaitTime(Duration.ofSeconds(1))),
                        Optional::isPresent)
                .orElseThrow();
        long grantedToB = System.nanoTime();
        boolean aStillHeld = held.isHeld();
        long lost = lossClock.get();
        log.info("Node B granted {} ms after the partition; node A's loss reported {}", (grantedToB - partitioned)
                / 1_000_000, lost == 0 ? "never" : ((lost - partitioned) / 1_000_000) + " ms after it");
        taken.unlock();
        held.unlock();

        assertThat(aStillHeld).as("node A still believed it held the lock (renewing, unacknowledged, on the "
                + "isolated old master) when node B was granted it on the promoted replica").isFalse();
        assertThat(lost).as("node A's lease loss was reported").isPositive();
        assertThat(lost).as("node A was told of its loss before node B was granted the lock")
                .isLessThan(grantedToB);
    }
}
