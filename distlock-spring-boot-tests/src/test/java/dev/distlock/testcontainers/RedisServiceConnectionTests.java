package dev.distlock.testcontainers;

import java.util.function.Supplier;

import dev.distlock.LockContext;
import dev.distlock.annotation.DistributedLock;
import dev.distlock.autoconfigure.DistlockAnnotationAutoConfiguration;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.redis.autoconfigure.DistlockRedisAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.testcontainers.containers.GenericContainer;
import redis.clients.jedis.Jedis;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.boot.SpringBootConfiguration;
import org.springframework.boot.autoconfigure.ImportAutoConfiguration;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisConnectionDetails;
import org.springframework.boot.test.context.SpringBootTest;
import org.springframework.boot.testcontainers.service.connection.ServiceConnection;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;
import org.springframework.test.annotation.DirtiesContext;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Testcontainers path of docs/how-to/testing.md, run: the application's Redis is a container declared with Spring Boot's
 * {@code @ServiceConnection}, no {@code spring.data.redis.*} is set, and a {@code @DistributedLock} method locks in
 * that container's Redis, because distlock uses the connection Boot makes from {@link DataRedisConnectionDetails}.
 * Skipped, saying why, without a Docker engine or the image ({@link DockerEngineRequired}).
 */
@ExtendWith(DockerEngineRequired.class)
@SpringBootTest(classes = RedisServiceConnectionTests.Application.class,
        webEnvironment = SpringBootTest.WebEnvironment.NONE)
@DirtiesContext
class RedisServiceConnectionTests {

    private static final String LOCK_KEY = "distlock:{stock:42}";

    @ServiceConnection(name = "redis")
    static final GenericContainer<?> redis = RedisContainerImage.newContainer();

    @Autowired
    Stock stock;

    @Autowired
    DataRedisConnectionDetails connectionDetails;

    @Autowired
    Environment environment;

    @Test
    void aDistributedLockMethodLocksInTheContainersRedis() {
        int port = redis.getMappedPort(6379);
        assertThat(port).as("the container's published port, so a Redis on the default port cannot pass for it")
                .isNotEqualTo(6379);
        assertThat(environment.getProperty("spring.data.redis.host")).isNull();
        assertThat(environment.getProperty("spring.data.redis.port")).isNull();
        assertThat(environment.getProperty("spring.data.redis.url")).isNull();
        assertThat(connectionDetails.getStandalone().getPort()).as("Boot's connection details name the container")
                .isEqualTo(port);
        try (Jedis container = new Jedis(redis.getHost(), port)) {
            Held held = stock.deduct(42, () -> container.get(LOCK_KEY));
            assertThat(held.valueInContainer()).as("the lock, read from the container's Redis while it was held")
                    .isNotNull().endsWith(":" + held.fencingToken());
            assertThat(container.exists(LOCK_KEY)).as("released in the container's Redis").isFalse();
        }
    }

    /** What the locked method saw: its fencing token and its lock's value in the container. */
    record Held(long fencingToken, String valueInContainer) {
    }

    /** The application's locked service. */
    static class Stock {

        @DistributedLock(name = "stock", key = "#productId")
        public Held deduct(long productId, Supplier<String> lockInContainer) {
            return new Held(LockContext.current().orElseThrow().fencingToken(), lockInContainer.get());
        }
    }

    /** The application, with the auto-configurations the Redis starter brings. */
    @SpringBootConfiguration
    @ImportAutoConfiguration({ DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
            DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class,
            DistlockAnnotationAutoConfiguration.class })
    static class Application {

        @Bean
        Stock stock() {
            return new Stock();
        }
    }
}
