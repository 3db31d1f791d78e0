package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;
import java.util.function.UnaryOperator;

import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.LockStore;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Test support: lock services on Redis stores with connections of their own, standing for separate application
 * nodes, and a plain client to look into Redis. Closes everything it made.
 */
final class LockNodes implements AutoCloseable {

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    private final List<StoreLockService> services = new ArrayList<>();

    private final List<RedisLockStore> stores = new ArrayList<>();

    static RedisLockConfig redisConfig(String prefix) {
        return RedisLockConfig.defaults().withKeyPrefix(prefix);
    }

    StoreLockService node(RedisServerProcess server, String prefix) {
        return node(server, LockConfig.defaults().withWaitTime(Duration.ofSeconds(5)), redisConfig(prefix));
    }

    StoreLockService node(RedisServerProcess server, LockConfig config, RedisLockConfig redis) {
        return node(factory(server), config, redis, LockListener.NONE);
    }

    StoreLockService node(RedisConnectionFactory factory, LockConfig config, RedisLockConfig redis,
            LockListener listener) {
        RedisLockStore store = new RedisLockStore(factory, redis);
        StoreLockService service = new StoreLockService(store, config, listener);
        service.start();
        services.add(service);
        stores.add(store);
        return service;
    }

    /**
     * @param wrap wraps the node's Redis store (e.g. to hold back some of its calls); the node still counts as on
     *        that Redis store for {@link #storeOf}
     */
    StoreLockService node(RedisServerProcess server, LockConfig config, RedisLockConfig redis,
            UnaryOperator<LockStore> wrap) {
        RedisLockStore store = new RedisLockStore(factory(server), redis);
        StoreLockService service = new StoreLockService(wrap.apply(store), config, LockListener.NONE);
        service.start();
        services.add(service);
        stores.add(store);
        return service;
    }

    RedisLockStore storeOf(StoreLockService node) {
        return stores.get(services.indexOf(node));
    }

    LettuceConnectionFactory factory(RedisServerProcess server) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(server.host(), server.port()),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(5)).build());
        factory.afterPropertiesSet();
        factory.start();
        factories.add(factory);
        return factory;
    }

    StringRedisTemplate redis(RedisServerProcess server) {
        return new StringRedisTemplate(factory(server));
    }

    /** @return how many times Redis ran the command (e.g. "evalsha") since start or CONFIG RESETSTAT */
    static long calls(StringRedisTemplate redis, String command) {
        Properties stats = redis.execute((RedisCallback<Properties>) c -> c.serverCommands().info("commandstats"));
        String line = stats == null ? null : stats.getProperty("cmdstat_" + command);
        if (line == null) {
            return 0;
        }
        for (String part : line.split(",")) {
            if (part.startsWith("calls=")) {
                return Long.parseLong(part.substring("calls=".length()));
            }
        }
        return 0;
    }

    @Override
    public void close() {
        services.forEach(StoreLockService::close);
        factories.forEach(LettuceConnectionFactory::destroy);
        services.clear();
        factories.clear();
        stores.clear();
    }
}
