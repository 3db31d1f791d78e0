package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Properties;

import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.spi.LockListener;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

/**
 * Test support: {@link RedisLockService} instances with connections of their own, standing for separate
 * application nodes, and a plain client to look into Redis. Closes everything it made.
 */
final class LockNodes implements AutoCloseable {

    private final List<LettuceConnectionFactory> factories = new ArrayList<>();

    private final List<RedisLockService> services = new ArrayList<>();

    RedisLockService node(RedisServerProcess server, RedisLockConfig config) {
        return node(server, config, LockListener.NONE);
    }

    RedisLockService node(RedisServerProcess server, RedisLockConfig config, LockListener listener) {
        RedisLockService service = new RedisLockService(factory(server), config, listener);
        service.start();
        services.add(service);
        return service;
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
        Properties stats = redis.execute((org.springframework.data.redis.core.RedisCallback<Properties>) c -> c
                .serverCommands().info("commandstats"));
        String line = stats.getProperty("cmdstat_" + command);
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
        services.forEach(RedisLockService::destroy);
        factories.forEach(LettuceConnectionFactory::destroy);
    }
}
