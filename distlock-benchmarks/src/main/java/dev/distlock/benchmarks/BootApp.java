package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.distlock.annotation.DistributedLock;

/**
 * The smallest Spring Boot application a distlock user would write: {@code @EnableAutoConfiguration} (on this
 * class path that is Boot's Redis, AOP and distlock's auto-configuration; no web server) and one bean with a
 * {@code @DistributedLock} method. The {@code distlock-boot} and {@code distlock-annotation} contenders each start
 * one per client instance.
 */
@SpringBootConfiguration
@EnableAutoConfiguration
public class BootApp {

    /** @return the bean whose annotated method the {@code distlock-annotation} contender calls */
    @Bean
    public LockedCalls lockedCalls() {
        return new LockedCalls();
    }

    /** The annotated bean (proxied by distlock's advisor). */
    public static class LockedCalls {

        /**
         * Runs the work under the lock {@code bench:<name>}.
         *
         * @param name the key part of the lock name
         * @param work what runs inside the lock
         */
        @DistributedLock(name = "bench", key = "#name")
        public void run(String name, Runnable work) {
            work.run();
        }
    }

    /**
     * Starts a context on the harness's Redis with distlock's defaults, except a 60 s wait (as every contender
     * waits about a minute; the 3 s default would fail waiters in B and G) and, when given, the watchdog lease.
     *
     * @param target the Redis server
     * @param lease {@code distlock.lease-time}, or null for the default
     * @return the started context; closed by the caller
     */
    static ConfigurableApplicationContext start(RedisTarget target, Duration lease) {
        Map<String, Object> properties = new LinkedHashMap<>();
        properties.put("spring.main.banner-mode", "off");
        properties.put("spring.data.redis.host", target.host());
        properties.put("spring.data.redis.port", String.valueOf(target.port()));
        // The harness has every store on its class path (workload S), as an application with several starters would.
        properties.put("distlock.store", "redis");
        properties.put("distlock.wait-time", "60s");
        if (lease != null) {
            properties.put("distlock.lease-time", lease.toMillis() + "ms");
        }
        return new SpringApplicationBuilder(BootApp.class).web(WebApplicationType.NONE).logStartupInfo(false)
                .properties(properties).run();
    }
}
