package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * What only Jedis has: replica acknowledgement cannot follow a write on its connection. (The store contract runs on
 * Jedis too, on this module's {@code jedis} fixture.)
 */
class JedisReplicationTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
    }

    /** Jedis cannot promise that WAIT follows the write on its connection: auto waits for none, a number refuses. */
    @Test
    void aFixedReplicaCountFailsStartUpNamingThePropertyWhileAutoWaitsForNone() {
        JedisConnectionFactory factory = new JedisConnectionFactory(
                new RedisStandaloneConfiguration(server.host(), server.port()));
        factory.afterPropertiesSet();
        factory.start();
        try {
            assertThatIllegalStateException().isThrownBy(() -> new RedisLockStore(factory,
                    LockNodes.redisConfig("jedis").withReplication(1, Duration.ofSeconds(1))))
                    .withMessageContaining("distlock.replication.min-replicas=1").withMessageContaining("Lettuce");
            new RedisLockStore(factory, LockNodes.redisConfig("jedis")).close(); // auto: a WARN, no failure
        }
        finally {
            factory.destroy();
        }
    }
}
