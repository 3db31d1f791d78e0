package dev.distlock.redis;

import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.spi.LockStore;
import dev.distlock.test.support.LockStoreContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * The store contract on Jedis: any Spring Data Redis client works through the generic connection API, so an
 * application configured with {@code spring.data.redis.client-type=jedis} is never left without locks.
 */
class JedisLockStoreContractTests extends LockStoreContractTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    static LockNodes admin;

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
        admin = new LockNodes();
    }

    @AfterAll
    static void closeAdmin() {
        admin.close();
    }

    @Override
    protected LockStore newStore() {
        JedisConnectionFactory factory = new JedisConnectionFactory(
                new RedisStandaloneConfiguration(server.host(), server.port()),
                JedisClientConfiguration.builder().readTimeout(Duration.ofSeconds(5)).usePooling().build());
        factory.afterPropertiesSet();
        factory.start();
        return new RedisLockStore(factory, LockNodes.redisConfig("jedis").withCommandTimeout(Duration.ofSeconds(1))) {
            @Override
            public void close() {
                super.close();
                factory.destroy();
            }
        };
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

    @Override
    protected void stopStore() {
        server.kill();
    }

    @Override
    protected void startStore() {
        server.start();
    }

    @Override
    protected void breakLease(String name) {
        admin.redis(server).delete("jedis:{" + name + "}");
    }
}
