package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionException;

import dev.distlock.embedded.RedisAddress;
import dev.distlock.embedded.RedisSentinelTopology;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.embedded.RedisTopologies;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The check of a new lock connection behind Sentinel, on a real topology (a master, two replicas, three Sentinels):
 * the master passes, a replica does not, and a node that calls itself master but is not the one the Sentinels name
 * (an old master resumed after a failover, before the Sentinels demote it) does not either — also while a Sentinel
 * does not answer.
 */
class SentinelMasterCheckTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisSentinelTopology topology;

    static LettuceConnectionFactory factory;

    static SentinelMasterCheck check;

    @BeforeAll
    static void start() {
        topology = RedisTopologies.sharedSentinel();
        topology.heal();
        RedisSentinelConfiguration sentinel = new RedisSentinelConfiguration(topology.masterName(),
                new java.util.HashSet<>(topology.sentinels().stream().map(RedisAddress::toString).toList()));
        factory = new LettuceConnectionFactory(sentinel,
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
        factory.afterPropertiesSet();
        factory.start();
        check = new SentinelMasterCheck(factory, Duration.ofSeconds(1));
    }

    @AfterAll
    static void stop() {
        factory.destroy();
        topology.heal();
    }

    private static void verify(RedisServerProcess node) {
        RedisClient client = (RedisClient) factory.getRequiredNativeClient();
        try (StatefulRedisConnection<byte[], byte[]> connection = client.connect(ByteArrayCodec.INSTANCE,
                RedisURI.create(node.host(), node.port()))) {
            check.verify(client, connection).join();
        }
        catch (CompletionException ex) {
            // The check answers with a stage; its failure is what a new lock connection would be refused with.
            throw ex.getCause() instanceof RuntimeException cause ? cause : ex;
        }
    }

    @Test
    void theMasterTheSentinelsNamePasses() {
        assertThatCode(() -> verify(topology.master())).doesNotThrowAnyException();
    }

    @Test
    void aReplicaIsRefused() {
        assertThatThrownBy(() -> verify(topology.replicas().get(0))).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("answers ROLE slave");
    }

    @Test
    void aMasterTheSentinelsDoNotNameIsRefused() {
        RedisServerProcess stranger = redisServers.start(); // a master, but not the one of this topology
        assertThatThrownBy(() -> verify(stranger)).isInstanceOf(IllegalStateException.class)
                .hasMessageContaining("0 of the 3 Sentinels that answered").hasMessageContaining("3 name another");
    }

    @Test
    void aFrozenSentinelHasNoSay() {
        List<RedisServerProcess> sentinels = topology.sentinelProcesses();
        sentinels.get(0).pause();
        try {
            assertThatCode(() -> verify(topology.master())).doesNotThrowAnyException();
            RedisServerProcess stranger = redisServers.start();
            assertThatThrownBy(() -> verify(stranger)).isInstanceOf(IllegalStateException.class)
                    .hasMessageContaining("2 name another");
        }
        finally {
            sentinels.get(0).resume();
        }
    }
}
