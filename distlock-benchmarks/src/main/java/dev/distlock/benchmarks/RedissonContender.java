package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.List;

import dev.distlock.test.support.StoreFixtures;
import org.redisson.Redisson;
import org.redisson.api.RLock;
import org.redisson.api.RedissonClient;
import org.redisson.config.Config;

/** Redisson {@code RLock} (non-fair lock, watchdog lease), default configuration. */
final class RedissonContender implements LockContender {

    @Override
    public String name() {
        return "Redisson RLock";
    }

    @Override
    public String version() {
        return "org.redisson:redisson " + StoreFixtures.version("org.redisson", "redisson", Redisson.class);
    }

    /** {@code RedissonMultiLock}: the locks in the order given. */
    @Override
    public boolean hasMultiLock() {
        return true;
    }

    @Override
    public LockClient connect(RedisTarget target, Duration watchdogLease) {
        Config config = new Config();
        config.useSingleServer().setAddress(target.uri());
        if (watchdogLease != null) {
            config.setLockWatchdogTimeout(watchdogLease.toMillis());
        }
        RedissonClient redisson = Redisson.create(config);
        return new LockClient() {
            @Override
            public Held acquire(String name) {
                RLock lock = redisson.getLock(name);
                lock.lock();
                return new Held() {
                    @Override
                    public void release() {
                        lock.unlock();
                    }

                    @Override
                    public boolean stillHeld() {
                        return lock.isLocked();
                    }
                };
            }

            @Override
            public void runLockedAll(List<String> names, Runnable work) {
                RLock all = redisson.getMultiLock(names.stream().map(redisson::getLock).toArray(RLock[]::new));
                all.lock();
                try {
                    work.run();
                }
                finally {
                    all.unlock();
                }
            }

            @Override
            public String redisKey(String name) {
                return name;
            }

            @Override
            public void close() {
                redisson.shutdown();
            }
        };
    }
}
