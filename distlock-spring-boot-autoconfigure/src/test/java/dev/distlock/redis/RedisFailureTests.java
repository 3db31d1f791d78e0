package dev.distlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Fail-closed behaviour when Redis is stopped, paused (SIGSTOP) or restarted, during acquire and while held.
 */
class RedisFailureTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private RedisServerProcess server;

    private final LockNodes nodes = new LockNodes();

    private final RedisLockConfig config = RedisLockConfig.defaults().withKeyPrefix("fail")
            .withWaitTime(Duration.ofSeconds(1)).withCommandTimeout(Duration.ofMillis(300))
            .withLeaseTime(Duration.ofMillis(900));

    @BeforeEach
    void startRedis() {
        server = redisServers.start();
    }

    @AfterEach
    void close() {
        server.resume();
        nodes.close();
        server.stop();
    }

    @Test
    void pausedRedisFailsAcquireWithinCommandTimeoutAndRecovers() {
        RedisLockService a = nodes.node(server, config);
        a.lock("warm").unlock();
        server.pause();
        AtomicBoolean ran = new AtomicBoolean();
        long start = System.nanoTime();
        assertThatThrownBy(() -> a.runWithLock("paused", () -> ran.set(true)))
                .isInstanceOf(LockUnavailableException.class).hasMessageContaining("distlock.command-timeout");
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        assertThat(ran).isFalse();
        server.resume();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> a.lock("paused").unlock());
    }

    @Test
    void timedOutAcquireThatRunsLaterIsReleased() {
        RedisLockService a = nodes.node(server, config.withLeaseTime(Duration.ofSeconds(30)));
        RedisLockService b = nodes.node(server, config);
        StringRedisTemplate redis = nodes.redis(server);
        a.lock("warm").unlock();
        server.pause();
        assertThatThrownBy(() -> a.lock("ambiguous")).isInstanceOf(LockUnavailableException.class);
        server.resume();
        // The buffered acquire runs after the resume; the release sent after it frees the lock long before its
        // 30 s lease would.
        await().atMost(Duration.ofSeconds(5)).until(() -> String.valueOf(redis.opsForValue().get("fail:{ambiguous}"))
                .startsWith("free:"));
        Optional<LockHandle> taken = b.tryLock("ambiguous", LockOptions.defaults().withWaitTime(Duration.ZERO));
        assertThat(taken).isPresent();
        taken.get().unlock();
    }

    @Test
    void stoppedRedisFailsAcquireAndRestartedRedisWorksWithoutRestartingTheApp() {
        RedisLockService a = nodes.node(server, config);
        a.lock("warm").unlock();
        server.kill();
        long start = System.nanoTime();
        assertThatThrownBy(() -> a.lock("down")).isInstanceOf(LockUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        server.start();
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> a.lock("down").unlock());
    }

    @Test
    void unreachableRedisWhileHeldLosesTheLeaseAtItsDeadline() {
        RedisLockService a = nodes.node(server, config);
        LockHandle handle = a.lock("held-paused");
        server.pause();
        await().atMost(Duration.ofSeconds(5)).until(() -> !handle.isHeld());
        assertThat(a.watchdogStatus().consecutiveFailures()).isPositive();
        server.resume();
        handle.unlock(); // logged, not thrown (on-lease-lost=log)
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> a.lock("held-paused").unlock());
    }

    @Test
    void restartedRedisWhileHeldLosesTheLease() {
        RedisLockService a = nodes.node(server, config);
        LockHandle handle = a.lock("held-restart");
        server.restart(); // no persistence: the lock key is gone
        await().atMost(Duration.ofSeconds(10)).until(() -> !handle.isHeld());
        handle.unlock();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> a.lock("held-restart").unlock());
    }

    @Test
    void redisDownAtStartFailsClosedAndWorksOnceItIsUp() {
        server.stop();
        RedisLockService a = nodes.node(server, config);
        long start = System.nanoTime();
        assertThatThrownBy(() -> a.lock("never-up")).isInstanceOf(LockUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        server.start();
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> a.lock("never-up").unlock());
    }
}
