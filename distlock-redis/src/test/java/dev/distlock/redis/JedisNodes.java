package dev.distlock.redis;

import java.util.List;

import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.spi.LockStore;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

/**
 * Nodes of the {@code jedis} fixture, in a class of their own so that a class path without Jedis (the benchmarks',
 * which never start that fixture) still loads {@link RedisFixtures}.
 */
final class JedisNodes {

    private JedisNodes() {
    }

    static LockStore node(RedisServerProcess server, RedisLockConfig config, List<AutoCloseable> resources) {
        JedisConnectionFactory factory = new JedisConnectionFactory(
                new RedisStandaloneConfiguration(server.host(), server.port()),
                JedisClientConfiguration.builder().usePooling().build());
        factory.afterPropertiesSet();
        factory.start();
        resources.add(factory::destroy); // the store does not close the application's connection factory
        return new RedisLockStore(factory, config);
    }
}
