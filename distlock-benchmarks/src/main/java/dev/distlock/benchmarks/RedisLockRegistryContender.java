package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.concurrent.locks.Lock;

import dev.distlock.test.support.StoreFixtures;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.integration.redis.util.RedisLockRegistry;
import org.springframework.integration.redis.util.RedisLockRegistry.RedisLockType;
import org.springframework.scheduling.concurrent.ThreadPoolTaskScheduler;

/**
 * Spring Integration {@code RedisLockRegistry} on a default {@link LettuceConnectionFactory}, in spin (default) or
 * pub/sub mode. Its locks are not renewed by default; workload E turns on its renewal scheduler.
 */
final class RedisLockRegistryContender implements LockContender {

    private static final String REGISTRY_KEY = "rlr";

    private final RedisLockType type;

    RedisLockRegistryContender(RedisLockType type) {
        this.type = type;
    }

    @Override
    public String name() {
        return type == RedisLockType.SPIN_LOCK ? "RedisLockRegistry spin" : "RedisLockRegistry pub/sub";
    }

    @Override
    public String version() {
        return "org.springframework.integration:spring-integration-redis "
                + StoreFixtures.version("org.springframework.integration", "spring-integration-redis",
                        RedisLockRegistry.class)
                + " (" + type + ")";
    }

    @Override
    public LockClient connect(RedisTarget target, Duration watchdogLease) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(target.host(), target.port()));
        factory.afterPropertiesSet();
        factory.start();
        RedisLockRegistry registry = watchdogLease == null ? new RedisLockRegistry(factory, REGISTRY_KEY)
                : new RedisLockRegistry(factory, REGISTRY_KEY, watchdogLease);
        registry.setRedisLockType(type);
        ThreadPoolTaskScheduler scheduler;
        if (watchdogLease != null) {
            scheduler = new ThreadPoolTaskScheduler();
            scheduler.setThreadNamePrefix("rlr-renewal-");
            scheduler.initialize();
            registry.setRenewalTaskScheduler(scheduler);
        }
        else {
            scheduler = null;
        }
        return new LockClient() {
            @Override
            public Held acquire(String name) throws InterruptedException {
                Lock lock = registry.obtain(name);
                lock.lockInterruptibly();
                return lock::unlock;
            }

            @Override
            public String redisKey(String name) {
                return REGISTRY_KEY + ":" + name;
            }

            @Override
            public void close() {
                registry.destroy();
                if (scheduler != null) {
                    scheduler.shutdown();
                }
                factory.destroy();
            }
        };
    }
}
