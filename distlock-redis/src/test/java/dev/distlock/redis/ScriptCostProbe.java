package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

/** Not a test of the build (its name matches no surefire pattern): Redis CPU per uncontended cycle. */
class ScriptCostProbe {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    @Test
    void measure() {
        RedisServerProcess server = redisServers.start();
        try (LockNodes nodes = new LockNodes()) {
            StoreLockService a = nodes.node(server, LockConfig.defaults().withWaitTime(Duration.ofSeconds(1)),
                    LockNodes.redisConfig("cost"));
            StringRedisTemplate redis = nodes.redis(server);
            for (int i = 0; i < 20_000; i++) {
                a.lock("warm" + i).unlock();
            }
            redis.execute((RedisCallback<Object>) c -> {
                c.serverCommands().resetConfigStats();
                return null;
            });
            int cycles = 50_000;
            for (int i = 0; i < cycles; i++) {
                a.lock("n" + i).unlock();
            }
            java.util.Properties stats = redis.execute((RedisCallback<java.util.Properties>) c -> c.serverCommands()
                    .info("commandstats"));
            long usec = 0;
            for (String key : stats.stringPropertyNames()) {
                String line = stats.getProperty(key);
                for (String part : line.split(",")) {
                    if (part.startsWith("usec=")) {
                        usec += Long.parseLong(part.substring(5));
                    }
                }
                System.out.println("PROBE " + key + " " + line);
            }
            System.out.println("PROBE usec per cycle " + (double) usec / cycles);
            redis.execute((RedisCallback<Object>) c -> {
                c.serverCommands().resetConfigStats();
                return null;
            });
            org.springframework.data.redis.core.script.DefaultRedisScript<Long> unlock =
                    new org.springframework.data.redis.core.script.DefaultRedisScript<>(
                            "if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) "
                                    + "else return 0 end", Long.class);
            for (int i = 0; i < cycles; i++) {
                String key = "t" + i;
                redis.opsForValue().setIfAbsent(key, "owner-token-0123456789", Duration.ofSeconds(30));
                redis.execute(unlock, java.util.List.of(key), "owner-token-0123456789");
            }
            stats = redis.execute((RedisCallback<java.util.Properties>) c -> c.serverCommands().info("commandstats"));
            long textbook = 0;
            for (String key : stats.stringPropertyNames()) {
                String line = stats.getProperty(key);
                if (key.contains("config")) {
                    continue;
                }
                for (String part : line.split(",")) {
                    if (part.startsWith("usec=")) {
                        textbook += Long.parseLong(part.substring(5));
                    }
                }
                System.out.println("PROBE textbook " + key + " " + line);
            }
            System.out.println("PROBE textbook usec per cycle " + (double) textbook / cycles + ", ratio "
                    + ((double) usec / textbook));
        }
    }
}
