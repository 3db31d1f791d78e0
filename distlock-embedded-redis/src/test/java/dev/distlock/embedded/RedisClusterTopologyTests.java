package dev.distlock.embedded;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The shared Redis Cluster against real processes: all slots served by three masters with one replica each,
 * usable by Spring Data Redis; a killed or paused master is replaced by its replica, and heal() restores it.
 */
class RedisClusterTopologyTests {

    private static final Logger log = LoggerFactory.getLogger(RedisClusterTopologyTests.class);

    private static final Duration FAILOVER = Duration.ofSeconds(30);

    private static RedisClusterTopology cluster;

    private LettuceConnectionFactory factory;

    @BeforeAll
    static void startCluster() {
        long started = System.nanoTime();
        cluster = RedisTopologies.sharedCluster();
        log.info("sharedCluster() took {} ms", (System.nanoTime() - started) / 1_000_000);
    }

    @AfterEach
    void healForTheNextTest() {
        if (factory != null) {
            factory.destroy();
        }
        cluster.heal();
    }

    @Test
    void threeMastersWithOneReplicaEachServeAllSlots() {
        List<RedisServerProcess> masters = cluster.masters();
        assertThat(masters).hasSize(3).doesNotHaveDuplicates();
        assertThat(cluster.replicas()).hasSize(3).doesNotContainAnyElementsOf(masters);
        assertThat(cluster.nodes()).hasSize(6);
        assertThat(cluster.masterOf(0)).isSameAs(masters.get(0));
        assertThat(cluster.masterOf(16383)).isSameAs(masters.get(2));
        for (RedisServerProcess node : cluster.servers()) {
            Map<String, String> info = Replies.info(node.call("CLUSTER", "INFO"));
            assertThat(info).containsEntry("cluster_state", "ok").containsEntry("cluster_slots_assigned", "16384")
                    .containsEntry("cluster_slots_ok", "16384").containsEntry("cluster_known_nodes", "6")
                    .containsEntry("cluster_size", "3");
        }
        for (RedisServerProcess replica : cluster.replicas()) {
            List<?> role = (List<?>) replica.call("ROLE");
            assertThat(role.get(0)).isEqualTo("slave");
            assertThat(role.get(3)).isEqualTo("connected");
            assertThat(masters).anyMatch(master -> role.get(2).equals((long) master.port()));
        }
        // Each master serves a third of the slots (the split redis-cli makes).
        int[] firstSlots = masters.stream().mapToInt(master -> slotRanges(master).get(0)[0]).toArray();
        assertThat(firstSlots).containsExactly(0, 5461, 10923);
    }

    @Test
    void masterForAgreesWithTheServersAndSpringDataRedisWorks() {
        RedisServerProcess anyNode = cluster.servers().get(0);
        for (String key : List.of("a", "b", "123456789", "{user1000}.following", "lock:stock:42", "ключ")) {
            assertThat((long) ClusterSlots.slot(key)).as(key).isEqualTo(anyNode.call("CLUSTER", "KEYSLOT", key));
            // The master masterFor() names takes the key without a MOVED redirection.
            assertThat(cluster.masterFor(key).call("SET", key, "v")).isEqualTo("OK");
        }
        StringRedisTemplate redis = template();
        IntStream.range(0, 30).forEach(i -> redis.opsForValue().set("cluster-key-" + i, String.valueOf(i)));
        IntStream.range(0, 30).forEach(i -> assertThat(cluster.masterFor("cluster-key-" + i)
                .call("GET", "cluster-key-" + i)).isEqualTo(String.valueOf(i)));
    }

    @Test
    void killedMasterIsReplacedByItsReplicaAndHealBringsItBackAsReplica() {
        RedisServerProcess master = cluster.masters().get(1);
        RedisServerProcess itsReplica = replicaOf(master);
        String key = keyServedBy(master);
        master.call("SET", key, "before");
        awaitReplicated(itsReplica, key);

        long killedAt = System.nanoTime();
        RedisServerProcess killed = cluster.killMaster(1);
        assertThat(killed).isSameAs(master);
        RedisServerProcess promoted = cluster.awaitFailover(FAILOVER);
        log.info("Cluster failover after SIGKILL took {} ms", (System.nanoTime() - killedAt) / 1_000_000);

        assertThat(promoted).isSameAs(itsReplica);
        assertThat(cluster.masterFor(key)).isSameAs(promoted);
        assertThat(cluster.masters()).hasSize(3).contains(promoted).doesNotContain(killed);
        assertThat(promoted.call("GET", key)).isEqualTo("before");
        assertThat(promoted.call("SET", key, "after")).isEqualTo("OK");
        assertThat(template().opsForValue().get(key)).isEqualTo("after");

        long healStarted = System.nanoTime();
        cluster.heal();
        log.info("Cluster heal after SIGKILL took {} ms", (System.nanoTime() - healStarted) / 1_000_000);
        assertThat(killed.isRunning()).isTrue();
        assertThat(replicaOf(promoted)).isSameAs(killed);
        assertThat(cluster.masters()).hasSize(3);
        assertThat(cluster.replicas()).hasSize(3).contains(killed);
    }

    @Test
    void pausedMasterIsReplacedAndHealResumesItAsReplica() {
        RedisServerProcess master = cluster.masters().get(0);
        RedisServerProcess itsReplica = replicaOf(master);

        long pausedAt = System.nanoTime();
        RedisServerProcess paused = cluster.pauseMaster(0);
        assertThat(paused.isPaused()).isTrue();
        RedisServerProcess promoted = cluster.awaitFailover(FAILOVER);
        log.info("Cluster failover after SIGSTOP took {} ms", (System.nanoTime() - pausedAt) / 1_000_000);
        assertThat(promoted).isSameAs(itsReplica);
        assertThat(cluster.masterOf(0)).isSameAs(promoted);

        long healStarted = System.nanoTime();
        cluster.heal();
        log.info("Cluster heal after SIGSTOP took {} ms", (System.nanoTime() - healStarted) / 1_000_000);
        assertThat(paused.isPaused()).isFalse();
        assertThat(replicaOf(promoted)).isSameAs(paused);
    }

    @Test
    void nodeThatLostItsClusterConfigRejoinsAsAFreshReplica() throws Exception {
        RedisServerProcess master = cluster.masters().get(2);
        RedisServerProcess replica = replicaOf(master);
        String oldId = String.valueOf(replica.call("CLUSTER", "MYID"));
        replica.kill();
        java.nio.file.Files.delete(replica.workDir().resolve("nodes.conf"));
        replica.start(); // a new node: new id, knows nobody

        long healStarted = System.nanoTime();
        cluster.heal();
        log.info("Cluster heal of a node without nodes.conf took {} ms", (System.nanoTime() - healStarted) / 1_000_000);
        assertThat(replica.call("CLUSTER", "MYID")).isNotEqualTo(oldId);
        assertThat(replicaOf(master)).isSameAs(replica);
        for (RedisServerProcess node : cluster.servers()) {
            assertThat(String.valueOf(node.call("CLUSTER", "NODES"))).doesNotContain(oldId);
        }
    }

    private static RedisServerProcess replicaOf(RedisServerProcess master) {
        return cluster.replicas().stream().filter(replica -> {
            List<?> role = (List<?>) replica.call("ROLE");
            return "slave".equals(role.get(0)) && role.get(2).equals((long) master.port());
        }).findFirst().orElseThrow(() -> new AssertionError("no replica of " + master));
    }

    private static String keyServedBy(RedisServerProcess master) {
        return IntStream.range(0, 1000).mapToObj(i -> "failover-key-" + i)
                .filter(key -> cluster.masterFor(key) == master).findFirst().orElseThrow();
    }

    private static void awaitReplicated(RedisServerProcess replica, String key) {
        // WAIT on the master would do, but READONLY on the replica shows it directly.
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
            try (RespConnection connection = RespConnection.open(replica.address(), Duration.ofSeconds(2))) {
                connection.call("READONLY");
                assertThat(connection.call("GET", key)).isNotNull();
            }
        });
    }

    private static List<int[]> slotRanges(RedisServerProcess master) {
        return ClusterNode.parse(master.call("CLUSTER", "NODES")).stream().filter(ClusterNode::isMyself).findFirst()
                .orElseThrow().slots();
    }

    private StringRedisTemplate template() {
        if (factory == null) {
            RedisClusterConfiguration config = new RedisClusterConfiguration(
                    cluster.nodes().stream().map(Object::toString).toList());
            factory = new LettuceConnectionFactory(config,
                    LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
            factory.afterPropertiesSet();
            factory.start();
        }
        return new StringRedisTemplate(factory);
    }
}
