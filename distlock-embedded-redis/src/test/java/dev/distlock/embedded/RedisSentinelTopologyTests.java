package dev.distlock.embedded;

import java.time.Duration;
import java.util.List;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The shared Sentinel topology against real processes: Spring Data Redis finds the master through the Sentinels,
 * a killed or paused master is replaced by a replica that takes writes, and heal() restores three servers.
 */
class RedisSentinelTopologyTests {

    private static final Logger log = LoggerFactory.getLogger(RedisSentinelTopologyTests.class);

    private static final Duration FAILOVER = Duration.ofSeconds(30);

    private static RedisSentinelTopology sentinel;

    private LettuceConnectionFactory factory;

    @BeforeAll
    static void startTopology() {
        long started = System.nanoTime();
        sentinel = RedisTopologies.sharedSentinel();
        log.info("sharedSentinel() took {} ms", (System.nanoTime() - started) / 1_000_000);
    }

    @AfterEach
    void healForTheNextTest() {
        if (factory != null) {
            factory.destroy();
        }
        sentinel.heal();
    }

    @Test
    void masterTwoReplicasAndThreeSentinelsThatSpringDataRedisCanUse() {
        RedisServerProcess master = sentinel.master();
        assertThat(sentinel.masterName()).isEqualTo(RedisTopologies.SHARED_MASTER_NAME);
        assertThat(sentinel.sentinels()).hasSize(3).doesNotHaveDuplicates();
        assertThat(sentinel.sentinelNodes()).contains(sentinel.sentinels().get(0).toString());
        assertThat(role(master).get(0)).isEqualTo("master");
        assertThat(sentinel.replicas()).hasSize(2).doesNotContain(master).allSatisfy(replica -> {
            assertThat(role(replica).get(0)).isEqualTo("slave");
            assertThat(role(replica).get(2)).isEqualTo((long) master.port());
        });

        StringRedisTemplate redis = template();
        redis.opsForValue().set("sentinel-key", "through-sentinel");
        assertThat(master.call("GET", "sentinel-key")).isEqualTo("through-sentinel");
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(sentinel.replicas())
                .allSatisfy(replica -> assertThat(replica.call("GET", "sentinel-key")).isEqualTo("through-sentinel")));
    }

    @Test
    void killedMasterIsReplacedByAReplicaThatTakesWritesAndHealBringsItBackAsReplica() {
        StringRedisTemplate redis = template();
        redis.opsForValue().set("before-failover", "1");
        List<RedisServerProcess> replicasBefore = sentinel.replicas();

        long killedAt = System.nanoTime();
        RedisServerProcess old = sentinel.killMaster();
        assertThat(old.isRunning()).isFalse();
        RedisServerProcess promoted = sentinel.awaitFailover(FAILOVER);
        log.info("Sentinel failover after SIGKILL took {} ms", (System.nanoTime() - killedAt) / 1_000_000);

        assertThat(promoted).isNotSameAs(old).isIn(replicasBefore);
        assertThat(sentinel.master()).isSameAs(promoted);
        assertThat(promoted.call("SET", "after-failover", "2")).isEqualTo("OK");
        assertThat(promoted.call("GET", "before-failover")).isEqualTo("1");
        // The client finds the new master through the Sentinels once it reconnects.
        await().atMost(FAILOVER).ignoreExceptions().untilAsserted(() -> {
            redis.opsForValue().set("via-sentinel", "3");
            assertThat(promoted.call("GET", "via-sentinel")).isEqualTo("3");
        });

        long healStarted = System.nanoTime();
        sentinel.heal();
        log.info("Sentinel heal after SIGKILL took {} ms", (System.nanoTime() - healStarted) / 1_000_000);
        assertThat(old.isRunning()).isTrue();
        assertThat(sentinel.master()).isSameAs(promoted);
        assertThat(sentinel.replicas()).hasSize(2).contains(old);
        assertThat(role(old).get(0)).isEqualTo("slave");
        assertThat(role(old).get(2)).isEqualTo((long) promoted.port());
        assertThat(role(old).get(3)).isEqualTo("connected");
        assertThat(old.call("GET", "after-failover")).isEqualTo("2");
    }

    @Test
    void pausedMasterIsReplacedAndHealResumesItAsReplica() {
        long pausedAt = System.nanoTime();
        RedisServerProcess old = sentinel.pauseMaster();
        assertThat(old.isPaused()).isTrue();
        RedisServerProcess promoted = sentinel.awaitFailover(FAILOVER);
        log.info("Sentinel failover after SIGSTOP took {} ms", (System.nanoTime() - pausedAt) / 1_000_000);
        assertThat(promoted).isNotSameAs(old);
        assertThat(promoted.call("SET", "after-pause", "1")).isEqualTo("OK");

        long healStarted = System.nanoTime();
        sentinel.heal();
        log.info("Sentinel heal after SIGSTOP took {} ms", (System.nanoTime() - healStarted) / 1_000_000);
        assertThat(old.isPaused()).isFalse();
        assertThat(sentinel.replicas()).hasSize(2).contains(old);
        assertThat(role(old).get(0)).isEqualTo("slave");
        assertThat(old.call("GET", "after-pause")).isEqualTo("1");
    }

    @Test
    void healRestartsAKilledReplicaAndAKilledSentinel() {
        RedisServerProcess replica = sentinel.replicas().get(0);
        RedisServerProcess aSentinel = sentinel.sentinelProcesses().get(1);
        replica.kill();
        aSentinel.kill();

        sentinel.heal();

        assertThat(replica.isRunning()).isTrue();
        assertThat(aSentinel.isRunning()).isTrue();
        assertThat(role(replica).get(0)).isEqualTo("slave");
        assertThat(role(replica).get(2)).isEqualTo((long) sentinel.master().port());
        List<?> masterAddress = (List<?>) aSentinel.call("SENTINEL", "get-master-addr-by-name", sentinel.masterName());
        assertThat(masterAddress.get(1)).isEqualTo(String.valueOf(sentinel.master().port()));
    }

    private static List<?> role(RedisServerProcess server) {
        return (List<?>) server.call("ROLE");
    }

    private StringRedisTemplate template() {
        RedisSentinelConfiguration config = new RedisSentinelConfiguration();
        config.master(sentinel.masterName());
        sentinel.sentinels().forEach(address -> config.sentinel(address.host(), address.port()));
        factory = new LettuceConnectionFactory(config,
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
        factory.afterPropertiesSet();
        factory.start();
        return new StringRedisTemplate(factory);
    }
}
