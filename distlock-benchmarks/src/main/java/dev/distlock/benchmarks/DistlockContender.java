package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.List;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.redis.RedisLockConfig;
import dev.distlock.redis.RedisLockStore;

import dev.distlock.test.support.StoreFixtures;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * distlock's programmatic {@code LockService} ({@link StoreLockService} on a {@link RedisLockStore}) on a default
 * {@link LettuceConnectionFactory}, default settings (watchdog lease of 30 s), waiting up to 60 s like the other
 * contenders.
 */
final class DistlockContender implements LockContender {

    /** Wait as long as the other contenders (which wait without bound); the 3 s default would fail waiters in B. */
    static final LockOptions OPTIONS = LockOptions.defaults().withWaitTime(Duration.ofSeconds(60));

    private final boolean batchedScripts;

    /** The default settings. */
    DistlockContender() {
        this(false);
    }

    /** @param batchedScripts whether with {@code distlock.redis.batched-scripts=true} (else the default settings) */
    DistlockContender(boolean batchedScripts) {
        this.batchedScripts = batchedScripts;
    }

    @Override
    public String name() {
        return batchedScripts ? Report.DISTLOCK + ", batched scripts" : Report.DISTLOCK;
    }

    @Override
    public String version() {
        return "dev.distlock " + StoreFixtures.version("dev.distlock", "distlock-redis", RedisLockStore.class)
                + " (this repository), StoreLockService on RedisLockStore with "
                + (batchedScripts ? "`distlock.redis.batched-scripts=true`" : "default settings");
    }

    /** {@code LockOptions.withPermits}. */
    @Override
    public boolean hasPermits() {
        return true;
    }

    /** {@code LockService.executeWithLocks}: sorted, all or none. */
    @Override
    public boolean hasMultiLock() {
        return true;
    }

    @Override
    public LockClient connect(RedisTarget target, Duration watchdogLease) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(target.host(), target.port()));
        factory.afterPropertiesSet();
        factory.start();
        LockConfig config = LockConfig.defaults();
        if (watchdogLease != null) {
            config = config.withLeaseTime(watchdogLease);
        }
        RedisLockConfig redisConfig = batchedScripts ? RedisLockConfig.defaults().withBatchedScripts()
                : RedisLockConfig.defaults();
        StoreLockService service = new StoreLockService(new RedisLockStore(factory, redisConfig), config,
                LockListener.NONE);
        service.start();
        String prefix = redisConfig.keyPrefix();
        return new LockClient() {
            @Override
            public Held acquire(String name) {
                LockHandle handle = service.lock(name, OPTIONS);
                return new Held() {
                    @Override
                    public void release() {
                        handle.unlock();
                    }

                    @Override
                    public boolean stillHeld() {
                        return handle.isHeld();
                    }
                };
            }

            @Override
            public void runWithPermit(String name, int permits, Runnable work) {
                try (LockHandle permit = service.lock(name, OPTIONS.withPermits(permits))) {
                    work.run();
                }
            }

            @Override
            public void runLockedAll(List<String> names, Runnable work) {
                service.executeWithLocks(names, OPTIONS, () -> {
                    work.run();
                    return null;
                });
            }

            @Override
            public String redisKey(String name) {
                return prefix + ":{" + name + "}";
            }

            @Override
            public void close() throws Exception {
                service.close();
                factory.destroy();
            }
        };
    }
}
