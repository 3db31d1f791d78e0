package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.listener.LockListener;
import dev.distlock.metrics.MicrometerLockListener;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The meters of docs/reference/meters.md recorded by the real engine against a real Redis: every acquire
 * and release outcome, lease loss, renewals, and the cardinality rule.
 */
class MetricsRedisTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    private final LockNodes nodes = new LockNodes();

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private final LockConfig config = LockConfig.defaults().withWaitTime(Duration.ofSeconds(2));

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
    }

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    void acquiredHeldAndReleased() {
        StoreLockService service = node(server, config, new MicrometerLockListener(registry));

        LockHandle handle = service.lock("stock:42");

        Timer acquired = registry.get("distlock.acquire").tags("lock", "stock", "result", "acquired").timer();
        assertThat(acquired.count()).isEqualTo(1);
        assertThat(registry.get("distlock.held").tags("lock", "stock").longTaskTimer().activeTasks()).isEqualTo(1);

        handle.unlock();

        assertThat(registry.get("distlock.held").tags("lock", "stock").longTaskTimer().activeTasks()).isZero();
        assertThat(count("distlock.release", "lock", "stock", "result", "released")).isEqualTo(1);
    }

    @Test
    void timeoutRecordsTheWaitTime() {
        StoreLockService holder = node(server, config, LockListener.NONE);
        StoreLockService waiter = node(server, config, new MicrometerLockListener(registry));

        try (LockHandle held = holder.lock("stock:7")) {
            Optional<LockHandle> none = waiter.tryLock("stock:7",
                    LockOptions.defaults().withWaitTime(Duration.ofMillis(200)));
            assertThat(none).isEmpty();
        }

        Timer timeout = registry.get("distlock.acquire").tags("lock", "stock", "result", "timeout").timer();
        assertThat(timeout.count()).isEqualTo(1);
        assertThat(timeout.totalTime(java.util.concurrent.TimeUnit.MILLISECONDS)).isGreaterThanOrEqualTo(190);
        assertThat(registry.get("distlock.held").tags("lock", "stock").longTaskTimer().activeTasks()).isZero();
    }

    @Test
    void waitingCountsTheWaitersOfThisInstance() throws Exception {
        StoreLockService holder = node(server, config, LockListener.NONE);
        StoreLockService waiter = node(server, config, new MicrometerLockListener(registry));
        ExecutorService threads = Executors.newFixedThreadPool(2);
        try (LockHandle held = holder.lock("stock:8")) {
            List<Future<?>> waiting = new ArrayList<>();
            for (int i = 0; i < 2; i++) {
                waiting.add(threads.submit(() -> waiter.lock("stock:8", LockOptions.defaults()
                        .withWaitTime(Duration.ofSeconds(10))).unlock()));
            }
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> registry.get("distlock.waiting").tags("lock", "stock").gauge().value() == 2);
            held.unlock();
            for (Future<?> each : waiting) {
                each.get(10, TimeUnit.SECONDS);
            }
        }
        finally {
            threads.shutdownNow();
        }
        assertThat(registry.get("distlock.waiting").tags("lock", "stock").gauge().value()).isZero();
    }

    @Test
    void errorWhenRedisIsDown() {
        RedisServerProcess doomed = redisServers.start();
        StoreLockService service = node(doomed, config, new MicrometerLockListener(registry));
        service.lock("warm-up").unlock();
        doomed.kill();

        assertThatThrownBy(() -> service.tryLock("stock:1")).isInstanceOf(LockUnavailableException.class);

        assertThat(registry.get("distlock.acquire").tags("lock", "stock", "result", "error").timer().count())
                .isEqualTo(1);
        assertThat(registry.get("distlock.held").tags("lock", "stock").longTaskTimer().activeTasks()).isZero();
    }

    @Test
    void releaseErrorWhenRedisIsGoneAtUnlock() {
        RedisServerProcess doomed = redisServers.start();
        StoreLockService service = node(doomed, config, new MicrometerLockListener(registry));
        LockHandle handle = service.lock("invoice:3", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(30)));
        doomed.kill();

        handle.unlock();

        assertThat(count("distlock.release", "lock", "invoice", "result", "error")).isEqualTo(1);
        assertThat(registry.get("distlock.held").tags("lock", "invoice").longTaskTimer().activeTasks()).isZero();
    }

    @Test
    void leaseLostWhenTheLockVanishesThenExpiredRelease() {
        StoreLockService service = node(server, config.withLeaseTime(Duration.ofMillis(300)),
                new MicrometerLockListener(registry));
        StringRedisTemplate redis = nodes.redis(server);

        LockHandle handle = service.lock("job:nightly");
        await().atMost(Duration.ofSeconds(5))
                .until(() -> count("distlock.renewal", "result", "renewed") >= 2);
        assertThat(redis.delete("obs:{job:nightly}")).isTrue();

        await().atMost(Duration.ofSeconds(5)).until(() -> count("distlock.lease.lost", "lock", "job") == 1);
        assertThat(handle.isHeld()).isFalse();
        assertThat(count("distlock.renewal", "result", "lost")).isEqualTo(1);
        assertThat(registry.get("distlock.held").tags("lock", "job").longTaskTimer().activeTasks()).isZero();

        handle.unlock();

        assertThat(count("distlock.release", "lock", "job", "result", "expired")).isEqualTo(1);
        assertThat(count("distlock.release", "lock", "job", "result", "released")).isZero();
    }

    @Test
    void expiredReleaseOfAFixedLease() {
        StoreLockService service = node(server, config, new MicrometerLockListener(registry));
        StringRedisTemplate redis = nodes.redis(server);

        LockHandle handle = service.lock("report:2025-01",
                LockOptions.defaults().withLeaseTime(Duration.ofMillis(150)));
        // Holding past the lease is the behaviour under test; wait for Redis to expire it rather than sleep.
        await().atMost(Duration.ofSeconds(5)).until(() -> !redis.hasKey("obs:{report:2025-01}"));
        // The hold ends with the lease, also for listeners, before (and whether or not) it is unlocked.
        await().atMost(Duration.ofSeconds(5)).until(() -> registry.get("distlock.held").tags("lock", "report")
                .longTaskTimer().activeTasks() == 0);
        assertThat(service.heldLocks()).isEmpty();

        handle.unlock();

        assertThat(count("distlock.release", "lock", "report", "result", "expired")).isEqualTo(1);
        assertThat(count("distlock.lease.lost", "lock", "report")).isZero();
        assertThat(registry.get("distlock.held").tags("lock", "report").longTaskTimer().activeTasks()).isZero();
    }

    @Test
    void keysNeverAppearInTags() {
        StoreLockService a = node(server, config, new MicrometerLockListener(registry));
        StoreLockService b = node(server, config, LockListener.NONE);
        List<String> keys = List.of("10001", "10002", "user-9f2c", "2025-06-01");
        for (String key : keys) {
            a.lock("stock:" + key).unlock();
            try (LockHandle held = b.lock("stock:" + key)) {
                assertThat(a.tryLock("stock:" + key, LockOptions.defaults().withWaitTime(Duration.ZERO))).isEmpty();
            }
        }

        List<Meter> meters = registry.getMeters().stream().filter(m -> m.getId().getName().startsWith("distlock."))
                .toList();
        assertThat(meters).isNotEmpty();
        for (Meter meter : meters) {
            for (Tag tag : meter.getId().getTags()) {
                for (String key : keys) {
                    assertThat(tag.getValue()).as(meter.getId().toString()).doesNotContain(key);
                }
            }
        }
        assertThat(registry.get("distlock.acquire").timers()).extracting(t -> t.getId().getTag("lock"))
                .containsOnly("stock");
        assertThat(registry.get("distlock.acquire").tags("result", "acquired").timer().count())
                .isEqualTo(keys.size());
        assertThat(registry.get("distlock.acquire").tags("result", "timeout").timer().count())
                .isEqualTo(keys.size());
    }

    @Test
    void lockingWorksWithoutAnyListener() {
        StoreLockService service = node(server, config, LockListener.NONE);
        try (LockHandle handle = service.lock("plain:1")) {
            assertThat(handle.isHeld()).isTrue();
            assertThat(service.heldLocks()).extracting(info -> info.name()).containsExactly("plain:1");
        }
        assertThat(service.heldLocks()).isEmpty();
    }

    private double count(String name, String... tags) {
        return registry.get(name).tags(tags).counter().count();
    }

    private StoreLockService node(RedisServerProcess redis, LockConfig lockConfig, LockListener listener) {
        return nodes.node(nodes.factory(redis), lockConfig, LockNodes.redisConfig("obs")
                .withCommandTimeout(Duration.ofMillis(500)), listener);
    }
}
