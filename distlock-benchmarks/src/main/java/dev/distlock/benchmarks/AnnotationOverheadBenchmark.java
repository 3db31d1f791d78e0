package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.WebApplicationType;
import org.springframework.boot.autoconfigure.EnableAutoConfiguration;
import org.springframework.boot.builder.SpringApplicationBuilder;
import org.springframework.context.ConfigurableApplicationContext;
import org.springframework.context.annotation.Bean;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.annotation.DistributedLock;

/**
 * Workload F (JMH): one {@code @DistributedLock(name = "stock", key = "#productId")} call against the equivalent
 * programmatic {@code lockService.runWithLock("stock:" + productId, ...)}, single-threaded, in a Spring Boot
 * context with distlock's auto-configuration. With {@code store = in-memory} the {@link LockService} is a no-op
 * stand-in, so the difference is the annotation's own cost (proxy, SpEL key, name); with {@code store = redis} it
 * is the real {@code StoreLockService} on Redis on the harness's server.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
public class AnnotationOverheadBenchmark {

    /** System properties that carry the Redis address into the forked JVM. */
    static final String HOST = "distlock.bench.redis.host";

    static final String PORT = "distlock.bench.redis.port";

    private static final Runnable NOTHING = () -> {
    };

    /** {@code in-memory} or {@code redis}. */
    @Param({ "in-memory", "redis" })
    public String store;

    private ConfigurableApplicationContext context;

    private Stock stock;

    private LockService lockService;

    private long productId;

    /** Starts the application context. */
    @Setup(Level.Trial)
    public void start() {
        Class<?> app = store.equals("redis") ? RedisApp.class : InMemoryApp.class;
        context = new SpringApplicationBuilder(app).web(WebApplicationType.NONE).logStartupInfo(false)
                .properties(Map.of("spring.main.banner-mode", "off", "spring.data.redis.host",
                        System.getProperty(HOST, "127.0.0.1"), "spring.data.redis.port",
                        System.getProperty(PORT, "6379")))
                .run();
        stock = context.getBean(Stock.class);
        lockService = context.getBean(LockService.class);
    }

    /** Closes the application context. */
    @TearDown(Level.Trial)
    public void stop() {
        context.close();
    }

    /** @return through the annotation */
    @Benchmark
    public long annotated() {
        return stock.deduct(productId++ & 1023);
    }

    /** @return through the programmatic API */
    @Benchmark
    public long programmatic() {
        long id = productId++ & 1023;
        lockService.runWithLock("stock:" + id, LockOptions.defaults(), NOTHING);
        return id;
    }

    /** The annotated bean. */
    public static class Stock {

        /**
         * @param productId the product
         * @return the product
         */
        @DistributedLock(name = "stock", key = "#productId")
        public long deduct(long productId) {
            return productId;
        }
    }

    /** distlock on Redis, auto-configured. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    public static class RedisApp {

        /** @return the annotated bean */
        @Bean
        public Stock stock() {
            return new Stock();
        }
    }

    /** The same with a no-op {@link LockService}, to isolate the annotation's cost. */
    @SpringBootConfiguration
    @EnableAutoConfiguration
    public static class InMemoryApp {

        /** @return the annotated bean */
        @Bean
        public Stock stock() {
            return new Stock();
        }

        /** @return a lock service that grants every lock at once, without any store */
        @Bean
        public LockService lockService() {
            return new NoStoreLockService();
        }
    }

    /** Grants every lock immediately; only the call path around it is measured. */
    static final class NoStoreLockService implements LockService {

        @Override
        public Optional<LockHandle> tryLock(String name, LockOptions options) {
            return Optional.of(new LockHandle() {
                private boolean held = true;

                @Override
                public String name() {
                    return name;
                }

                @Override
                public long fencingToken() {
                    return 1;
                }

                @Override
                public boolean isHeld() {
                    return held;
                }

                @Override
                public Duration remaining() {
                    return held ? Duration.ofSeconds(30) : Duration.ZERO;
                }

                @Override
                public void unlock() {
                    held = false;
                }

                @Override
                public void close() {
                    unlock();
                }
            });
        }
    }
}
