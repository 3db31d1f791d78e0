package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.test.support.LockHistory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.RedisCallback;
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

    private final LockHistory history = new LockHistory();

    /** The engine bounds every store call by the same 300 ms the store's client is set to. */
    private final LockConfig config = LockConfig.defaults().withWaitTime(Duration.ofSeconds(1))
            .withLeaseTime(Duration.ofMillis(900)).withCommandTimeout(Duration.ofMillis(300));

    private final RedisLockConfig redisConfig = LockNodes.redisConfig("fail")
            .withCommandTimeout(Duration.ofMillis(300));

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

    private StoreLockService node(LockConfig lockConfig, RedisLockConfig redis) {
        return nodes.node(nodes.factory(server), lockConfig, redis, CompositeLockListener.of(List.of(
                history.listener())));
    }

    private StoreLockService node() {
        return node(config, redisConfig);
    }

    @Test
    void pausedRedisFailsAcquireWithinCommandTimeoutAndRecovers() {
        StoreLockService a = node();
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

    /**
     * Four threads of one instance wait for a lock another instance holds; Redis then hangs. The one asking Redis
     * fails after one command timeout, and the three queued behind it fail with it, without an attempt each (which
     * made the last of them wait four command timeouts, and more with a longer wait time).
     */
    @Test
    void threadsQueuedBehindAnAttemptRedisDidNotAnswerFailWithIt() throws Exception {
        StoreLockService holder = node();
        StoreLockService a = node();
        LockHandle held = holder.lock("queued", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(30)));
        List<Thread> waiters = new ArrayList<>();
        List<Throwable> failures = new CopyOnWriteArrayList<>();
        for (int i = 0; i < 4; i++) {
            Thread waiter = new Thread(() -> {
                try {
                    a.lock("queued", LockOptions.defaults().withWaitTime(Duration.ofSeconds(30))).unlock();
                }
                catch (RuntimeException ex) {
                    failures.add(ex);
                }
            }, "waiter-" + i);
            waiter.start();
            waiters.add(waiter);
        }
        // All four are parked: one between its refused attempts, three in the instance's queue for the name.
        await().atMost(Duration.ofSeconds(10)).until(() -> waiters.stream()
                .allMatch(waiter -> waiter.getState() == Thread.State.TIMED_WAITING));
        server.pause();
        for (Thread waiter : waiters) {
            waiter.join(Duration.ofSeconds(20).toMillis());
        }
        assertThat(failures).hasSize(4).allMatch(LockUnavailableException.class::isInstance);
        assertThat(failures).filteredOn(failure -> failure.getMessage().contains("did not answer"))
                .as("failures, of which only the first asked Redis").hasSize(4)
                .filteredOn(failure -> failure.getMessage().contains("not attempted")).hasSize(3);
        server.resume();
        held.unlock();
    }

    @Test
    void timedOutAcquireThatRunsLaterIsReleased() {
        StoreLockService a = node(config.withLeaseTime(Duration.ofSeconds(30)), redisConfig);
        StoreLockService b = node();
        StringRedisTemplate redis = nodes.redis(server);
        a.lock("warm").unlock();
        server.pause();
        assertThatThrownBy(() -> a.lock("ambiguous")).isInstanceOf(LockUnavailableException.class);
        server.resume();
        // The buffered acquire runs after the resume; the release chained after it frees the lock long before its
        // 30 s lease would.
        await().atMost(Duration.ofSeconds(5)).until(() -> !Boolean.TRUE.equals(redis.hasKey("fail:{ambiguous}")));
        Optional<LockHandle> taken = b.tryLock("ambiguous", LockOptions.defaults().withWaitTime(Duration.ZERO));
        assertThat(taken).isPresent();
        taken.get().unlock();
    }

    @Test
    void timedOutAcquireIsReleasedAfterItEvenWhenTheScriptCacheWasFlushed() {
        StoreLockService a = node(config.withLeaseTime(Duration.ofSeconds(30)), redisConfig);
        StoreLockService b = node();
        StringRedisTemplate redis = nodes.redis(server);
        a.lock("warm").unlock();
        // Redis forgot the acquire script (a restart or SCRIPT FLUSH) but already knows the release script again:
        // the acquire's EVALSHA fails with NOSCRIPT and its EVAL goes out only after that answer.
        redis.execute((RedisCallback<Object>) connection -> {
            connection.scriptingCommands().scriptFlush();
            return connection.scriptingCommands().scriptLoad(LuaScript.RELEASE.body());
        });
        server.pause();
        assertThatThrownBy(() -> a.lock("flushed")).isInstanceOf(LockUnavailableException.class);
        server.resume();
        await().atMost(Duration.ofSeconds(5)).until(() -> !Boolean.TRUE.equals(redis.hasKey("fail:{flushed}")));
        Optional<LockHandle> taken = b.tryLock("flushed", LockOptions.defaults().withWaitTime(Duration.ZERO));
        assertThat(taken).as("no orphan holds the lock for its 30 s lease").isPresent();
        taken.get().unlock();
    }

    @Test
    void stoppedRedisFailsAcquireAndRestartedRedisWorksWithoutRestartingTheApp() {
        StoreLockService a = node();
        a.lock("warm").unlock();
        server.kill();
        long start = System.nanoTime();
        assertThatThrownBy(() -> a.lock("down")).isInstanceOf(LockUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        server.start();
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> a.lock("down").unlock());
    }

    @Test
    void unreachableRedisWhileHeldEndsTheLeaseAtItsDeadlineEvenBeforeTheWatchdogNotices() {
        // The watchdog's renewal waits up to 5 s for the paused Redis: isHeld() must not wait for it.
        StoreLockService a = node(config.withLeaseTime(Duration.ofSeconds(1)).withCommandTimeout(Duration.ofSeconds(5)),
                redisConfig.withCommandTimeout(Duration.ofSeconds(5)));
        a.runWithLock("held-paused", () -> {
            LockHandle handle = LockContext.current().orElseThrow();
            server.pause();
            long paused = System.nanoTime();
            await().atMost(Duration.ofSeconds(3)).until(() -> !handle.isHeld());
            assertThat(Duration.ofNanos(System.nanoTime() - paused)).isLessThan(Duration.ofMillis(2500));
            // No reentry into a lease that may have run out: once the watchdog's deadline guard has reported the
            // loss the store is asked, which fails closed while Redis is paused; just before, the scope says no.
            Optional<LockHandle> again;
            try {
                again = a.tryLock("held-paused", LockOptions.defaults().withWaitTime(Duration.ZERO));
            }
            catch (LockUnavailableException ex) {
                again = Optional.empty();
            }
            assertThat(again).as("no reentry into a lease that may have run out").isEmpty();
            server.resume();
        });
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> a.lock("held-paused").unlock());
    }

    @Test
    void restartedRedisWhileHeldLosesTheLease() {
        StoreLockService a = node();
        LockHandle handle = a.lock("held-restart");
        server.restart(); // no persistence: the lock key is gone
        await().atMost(Duration.ofSeconds(10)).until(() -> !handle.isHeld());
        handle.unlock();
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> a.lock("held-restart").unlock());
    }

    @Test
    void redisDownAtStartFailsClosedAndWorksOnceItIsUp() {
        server.stop();
        StoreLockService a = node();
        long start = System.nanoTime();
        assertThatThrownBy(() -> a.lock("never-up")).isInstanceOf(LockUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(2));
        server.start();
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> a.lock("never-up").unlock());
    }

    @Test
    void redisPausedPastALeaseWhileTwoNodesCompeteNeverGivesTwoUnreportedHolders() throws Exception {
        StoreLockService[] two = { node(config.withWaitTime(Duration.ofSeconds(2)), redisConfig),
                node(config.withWaitTime(Duration.ofSeconds(2)), redisConfig) };
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(4);
        List<Future<?>> workers = new ArrayList<>();
        for (int t = 0; t < 4; t++) {
            StoreLockService node = two[t % 2];
            String name = "node-" + (t % 2) + "/" + t;
            workers.add(pool.submit(() -> {
                while (!stop.get()) {
                    try (LockHandle handle = node.lock("contended")) {
                        history.hold(name, handle, () -> sleepQuietly(20));
                    }
                    catch (RuntimeException ex) {
                        // unavailable or timed out while Redis is paused: fail closed, nothing recorded
                    }
                }
                return null;
            }));
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> history.grants().size() >= 10);
        server.pause();
        Thread.sleep(2000); // the behaviour under test: Redis frozen for more than two leases
        server.resume();
        int before = history.grants().size();
        await().atMost(Duration.ofSeconds(15)).until(() -> history.grants().size() >= before + 10);
        stop.set(true);
        for (Future<?> worker : workers) {
            worker.get(30, TimeUnit.SECONDS);
        }
        pool.shutdown();
        history.assertConsistent();
    }

    private static void sleepQuietly(long millis) {
        try {
            Thread.sleep(millis); // work inside the lock
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
