package dev.distlock.benchmarks;

import java.time.Duration;

import dev.distlock.test.support.StoreFixtures;
import org.springframework.context.ConfigurableApplicationContext;

import dev.distlock.autoconfigure.DistlockProperties;

/**
 * distlock through {@code @DistributedLock(name = "bench", key = "#name")} on a bean of a minimal {@link BootApp}
 * context: every lock is one call of the annotated method, with the work as its body. It has no handle to hold
 * past the call, so workload E (locks held while renewed) leaves it out.
 */
final class DistlockAnnotationContender implements LockContender {

    @Override
    public String name() {
        return "distlock Boot @DistributedLock";
    }

    @Override
    public String version() {
        return "distlock-spring-boot-starter "
                + StoreFixtures.version("dev.distlock", "distlock-spring-boot-autoconfigure", DistlockProperties.class)
                + ": @DistributedLock(name = \"bench\", key = \"#name\"), "
                + "distlock.wait-time=60s";
    }

    @Override
    public boolean holdsHandles() {
        return false;
    }

    @Override
    public LockClient connect(RedisTarget target, Duration watchdogLease) {
        ConfigurableApplicationContext context = BootApp.start(target, watchdogLease);
        BootApp.LockedCalls calls = context.getBean(BootApp.LockedCalls.class);
        String prefix = context.getBean(DistlockProperties.class).keyPrefix();
        return new LockClient() {
            @Override
            public Held acquire(String name) {
                throw new UnsupportedOperationException("the annotation holds a lock only during the call");
            }

            @Override
            public void runLocked(String name, Runnable work) {
                calls.run(name, work);
            }

            @Override
            public String redisKey(String name) {
                return prefix + ":{bench:" + name + "}";
            }

            @Override
            public void close() {
                context.close();
            }
        };
    }
}
