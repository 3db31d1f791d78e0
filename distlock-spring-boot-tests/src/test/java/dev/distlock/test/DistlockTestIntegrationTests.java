package dev.distlock.test;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.annotation.DistributedLock;
import dev.distlock.autoconfigure.DistlockAnnotationAutoConfiguration;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.redis.autoconfigure.DistlockRedisAutoConfiguration;
import dev.distlock.redis.RedisLockStore;
import dev.distlock.spi.LockStore;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.context.annotation.Bean;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * {@link DistlockTest @DistlockTest} as an application uses it: a {@code @SpringBootTest} with the starter's
 * auto-configuration, whose {@code @DistributedLock} method locks in the embedded Redis. The application's own
 * {@code spring.data.redis.port} points nowhere: the embedded server's address wins. The annotation is used
 * through a composed annotation of the application's.
 */
@DistlockTestIntegrationTests.IntegrationTest
class DistlockTestIntegrationTests {

    @Autowired
    Stock stock;

    @Autowired
    LockStore store;

    @Autowired
    StringRedisTemplate redis;

    @Test
    void aDistributedLockMethodLocksInTheEmbeddedRedis() {
        assertThat(store).isInstanceOf(RedisLockStore.class);
        String key = "distlock:{stock:42}";
        // Seen through the application's own Redis template and through the embedded server directly.
        Held held = stock.deduct(42);
        assertThat(held.valueSeenByTheApplication()).isEqualTo(held.valueInRedis())
                .endsWith(":" + held.fencingToken());
        assertThat(DistlockTestRedis.call("EXISTS", key)).as("released").isEqualTo(0L);
        assertThat(redis.hasKey(key)).isFalse();
    }

    /** What the locked method saw of its lock in Redis. */
    record Held(long fencingToken, String valueSeenByTheApplication, Object valueInRedis) {
    }

    /** The application's locked service. */
    static class Stock {

        private final StringRedisTemplate redis;

        Stock(StringRedisTemplate redis) {
            this.redis = redis;
        }

        @DistributedLock(name = "stock", key = "#productId")
        public Held deduct(long productId) {
            LockHandle lock = LockContext.current().orElseThrow();
            String key = "distlock:{stock:" + productId + "}";
            return new Held(lock.fencingToken(), redis.opsForValue().get(key), DistlockTestRedis.call("GET", key));
        }
    }

    /**
     * The application, with the auto-configurations the Redis starter brings (rather than every one on the test
     * class path, which only makes the context slower to start).
     */
    @SpringBootConfiguration
    @ImportAutoConfiguration({ DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
            DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class,
            DistlockAnnotationAutoConfiguration.class })
    static class Application {

        @Bean
        Stock stock(StringRedisTemplate redis) {
            return new Stock(redis);
        }
    }

    /** An application's own test annotation, composed with {@code @DistlockTest}. */
    @Target(ElementType.TYPE)
    @Retention(RetentionPolicy.RUNTIME)
    @SpringBootTest(classes = Application.class, webEnvironment = SpringBootTest.WebEnvironment.NONE,
            properties = { "spring.data.redis.host=redis.invalid", "spring.data.redis.port=1" })
    @DistlockTest
    @interface IntegrationTest {
    }
}
