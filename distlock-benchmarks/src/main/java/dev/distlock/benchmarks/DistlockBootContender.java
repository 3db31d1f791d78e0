package dev.distlock.benchmarks;

import java.time.Duration;

import dev.distlock.test.support.StoreFixtures;
import org.springframework.context.ConfigurableApplicationContext;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.autoconfigure.DistlockProperties;

/**
 * distlock as Spring Boot users get it: the auto-configured {@link LockService} bean of a minimal {@link BootApp}
 * context on {@code spring.data.redis.*} (Boot's own {@code LettuceConnectionFactory}), called with the configured
 * defaults ({@code lockService.lock(name)}).
 */
final class DistlockBootContender implements LockContender {

    @Override
    public String name() {
        return "distlock Boot LockService";
    }

    @Override
    public String version() {
        return "distlock-spring-boot-starter "
                + StoreFixtures.version("dev.distlock", "distlock-spring-boot-autoconfigure", DistlockProperties.class)
                + ": the auto-configured LockService bean, distlock.wait-time=60s";
    }

    @Override
    public LockClient connect(RedisTarget target, Duration watchdogLease) {
        ConfigurableApplicationContext context = BootApp.start(target, watchdogLease);
        LockService service = context.getBean(LockService.class);
        String prefix = context.getBean(DistlockProperties.class).keyPrefix();
        return new LockClient() {
            @Override
            public Held acquire(String name) {
                LockHandle handle = service.lock(name);
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
            public String redisKey(String name) {
                return prefix + ":{" + name + "}";
            }

            @Override
            public void close() {
                context.close();
            }
        };
    }
}
