package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.spi.LockStore;
import dev.distlock.test.support.LockStoreContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * The store contract against one real Redis, every node on a connection of its own.
 */
class RedisLockStoreContractTests extends LockStoreContractTests {

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
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(server.host(), server.port()),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
        factory.afterPropertiesSet();
        factory.start();
        return new RedisLockStore(factory, LockNodes.redisConfig("contract").withCommandTimeout(
                Duration.ofSeconds(1))) {
            @Override
            public void close() {
                super.close();
                factory.destroy();
            }
        };
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
        StringRedisTemplate redis = admin.redis(server);
        redis.delete("contract:{" + name + "}");
    }
}
