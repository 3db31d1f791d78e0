package dev.distlock.actuate;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;

import dev.distlock.core.HeldLockInfo;
import dev.distlock.core.HeldLockRegistry;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.core.WatchdogStatus;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.listener.LockListener;
import dev.distlock.redis.RedisLockConfig;
import dev.distlock.redis.RedisLockStore;
import dev.distlock.spi.StoreHealth;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.Status;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The health contributor against a real Redis that is paused and killed. The watchdog state comes from a fixed
 * {@link HeldLockRegistry}, so that each half of the rule (Redis answers, watchdog on time) is checked alone;
 * the engine's own watchdog is covered end to end in {@code ObservabilityWebTests}.
 */
class DistlockHealthIndicatorTests {

    @RegisterExtension
    static RedisServersExtension redis = new RedisServersExtension();

    private RedisServerProcess server;

    private LettuceConnectionFactory connectionFactory;

    private volatile WatchdogStatus watchdog = status(true);

    private final HeldLockRegistry registry = new HeldLockRegistry() {
        @Override
        public List<HeldLockInfo> heldLocks() {
            return List.of();
        }

        @Override
        public WatchdogStatus watchdogStatus() {
            return watchdog;
        }

        @Override
        public StoreHealth storeHealth(Duration timeout) {
            return engine.storeHealth(timeout); // the engine bounds the store's answer
        }
    };

    private RedisLockStore store;

    private StoreLockService engine;

    @BeforeEach
    void startRedis() {
        server = redis.start();
        // The client's own timeout is far longer than the health timeout: the indicator must not depend on it.
        connectionFactory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(server.host(),
                server.port()), LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(30)).build());
        connectionFactory.afterPropertiesSet();
        connectionFactory.start();
        store = new RedisLockStore(connectionFactory, RedisLockConfig.defaults());
        engine = new StoreLockService(store, LockConfig.defaults(), LockListener.NONE);
    }

    @AfterEach
    void stopClient() {
        engine.close();
        connectionFactory.destroy();
    }

    @Test
    void upWhenRedisAnswersAndWatchdogIsOnTime() {
        Health health = indicator(Duration.ofSeconds(2)).health();

        assertThat(health.getStatus()).isEqualTo(Status.UP);
        assertThat(health.getDetails()).containsEntry("store", "UP").containsEntry("redis", "UP").containsEntry("ping", "PONG")
                .containsEntry("heldLocks", 0);
        assertThat(watchdogDetails(health)).containsEntry("onTime", true);
    }

    @Test
    void downWhenWatchdogLags() {
        watchdog = status(false);

        Health health = indicator(Duration.ofSeconds(2)).health();

        assertThat(health.getStatus()).isEqualTo(Status.DOWN);
        assertThat(health.getDetails()).containsEntry("redis", "UP");
        assertThat(watchdogDetails(health)).containsEntry("onTime", false)
                .containsEntry("consecutiveFailures", 4);
    }

    @Test
    void downWithinTheTimeoutWhenRedisIsPausedAndUpAgainAfterResume() {
        DistlockHealthIndicator indicator = indicator(Duration.ofMillis(300));
        assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

        server.pause();
        long start = System.nanoTime();
        Health first = indicator.health();
        Health second = indicator.health();
        Duration took = Duration.ofNanos(System.nanoTime() - start);

        assertThat(first.getStatus()).isEqualTo(Status.DOWN);
        assertThat(second.getStatus()).isEqualTo(Status.DOWN);
        assertThat(first.getDetails()).containsEntry("store", "DOWN");
        // Durations in milliseconds, as in every distlock message (not "PT0.3S").
        assertThat((String) first.getDetails().get("error")).contains("did not answer")
                .containsPattern("within (distlock.command-timeout \\()?\\d+ ms").doesNotContain("PT");
        assertThat(took).isLessThan(Duration.ofSeconds(2));

        server.resume();
        await().atMost(Duration.ofSeconds(10))
                .untilAsserted(() -> assertThat(indicator.health().getStatus()).isEqualTo(Status.UP));
    }

    @Test
    void downWhenRedisIsKilled() {
        DistlockHealthIndicator indicator = indicator(Duration.ofMillis(500));
        assertThat(indicator.health().getStatus()).isEqualTo(Status.UP);

        server.kill();

        await().atMost(Duration.ofSeconds(5))
                .untilAsserted(() -> assertThat(indicator.health().getStatus()).isEqualTo(Status.DOWN));
        assertThat(indicator.health().getDetails()).containsEntry("store", "DOWN").containsKey("error");
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> watchdogDetails(Health health) {
        return (Map<String, Object>) health.getDetails().get("watchdog");
    }

    private DistlockHealthIndicator indicator(Duration timeout) {
        return new DistlockHealthIndicator(registry, timeout);
    }

    private static WatchdogStatus status(boolean onTime) {
        Instant now = Instant.now();
        return new WatchdogStatus(true, 1, now, onTime ? now : now.minusSeconds(60), onTime ? 0 : 4, onTime);
    }
}
