package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LeaseLostException;
import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.OnLeaseLost;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The lock engine against a real Redis, with two services on separate connections standing for two nodes.
 */
class RedisLockServiceTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    private final LockNodes nodes = new LockNodes();

    private final RedisLockConfig config = RedisLockConfig.defaults().withKeyPrefix("test")
            .withWaitTime(Duration.ofSeconds(5)).withCommandTimeout(Duration.ofSeconds(2));

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
    }

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    void mutualExclusionAcrossTwoNodesAndSixteenThreads() throws Exception {
        RedisLockService[] services = { nodes.node(server, config), nodes.node(server, config) };
        int[] counter = { 0 }; // deliberately unsynchronised: only the lock keeps it right
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger overlaps = new AtomicInteger();
        int perThread = 40;
        ExecutorService pool = Executors.newFixedThreadPool(16);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<?>> futures = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            RedisLockService service = services[t % 2];
            futures.add(pool.submit(() -> {
                go.await();
                for (int i = 0; i < perThread; i++) {
                    service.runWithLock("counter", LockOptions.defaults().withWaitTime(Duration.ofSeconds(30)), () -> {
                        if (inside.incrementAndGet() > 1) {
                            overlaps.incrementAndGet();
                        }
                        int read = counter[0];
                        Thread.yield();
                        counter[0] = read + 1;
                        inside.decrementAndGet();
                    });
                }
                return null;
            }));
        }
        go.countDown();
        for (Future<?> future : futures) {
            future.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
        assertThat(overlaps).hasValue(0);
        assertThat(counter[0]).isEqualTo(16 * perThread);
    }

    @Test
    void zeroWaitMakesExactlyOneAttempt() {
        RedisLockService a = nodes.node(server, config);
        RedisLockService b = nodes.node(server, config);
        StringRedisTemplate redis = nodes.redis(server);
        try (LockHandle held = a.lock("once")) {
            long before = LockNodes.calls(redis, "evalsha");
            Optional<LockHandle> none = b.tryLock("once", LockOptions.defaults().withWaitTime(Duration.ZERO));
            assertThat(none).isEmpty();
            assertThat(LockNodes.calls(redis, "evalsha") - before).isEqualTo(1);
        }
    }

    @Test
    void uncontendedAcquireAndReleaseAreOneRoundTripEach() {
        RedisLockService a = nodes.node(server, config);
        StringRedisTemplate redis = nodes.redis(server);
        a.lock("warm-up").unlock(); // loads the scripts
        long before = LockNodes.calls(redis, "evalsha");
        LockHandle handle = a.lock("uncontended");
        assertThat(LockNodes.calls(redis, "evalsha") - before).isEqualTo(1);
        handle.unlock();
        assertThat(LockNodes.calls(redis, "evalsha") - before).isEqualTo(2);
        assertThat(redis.opsForValue().get("test:{uncontended}")).as("free, remembering the fencing token")
                .isEqualTo("free:" + handle.fencingToken());
    }

    @Test
    void waitTimeElapsesWithTimeoutException() {
        RedisLockService a = nodes.node(server, config);
        RedisLockService b = nodes.node(server, config);
        try (LockHandle held = a.lock("busy")) {
            long start = System.nanoTime();
            assertThatThrownBy(() -> b.lock("busy", LockOptions.defaults().withWaitTime(Duration.ofMillis(300))))
                    .isInstanceOf(LockTimeoutException.class).hasMessageContaining("busy");
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isBetween(Duration.ofMillis(300),
                    Duration.ofSeconds(3));
        }
    }

    @Test
    void waiterIsWokenByReleaseNotification() throws Exception {
        RedisLockService a = nodes.node(server, config);
        RedisLockService b = nodes.node(server, config);
        LockHandle held = a.lock("handoff");
        CountDownLatch waiting = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Long> waiter = pool.submit(() -> {
            waiting.countDown();
            try (LockHandle handle = b.lock("handoff", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)))) {
                return handle.fencingToken();
            }
        });
        waiting.await();
        // Let the waiter fail its first attempt and park: it marks itself as waiting in Redis.
        StringRedisTemplate redis = nodes.redis(server);
        await().atMost(Duration.ofSeconds(5)).until(() -> Boolean.TRUE.equals(redis.hasKey("test:{handoff}:waiters")));
        long released = System.nanoTime();
        held.unlock();
        long token = waiter.get(10, TimeUnit.SECONDS);
        // Woken by pub/sub, well before the 30 s lease or the recheck interval would let it in.
        assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(RedisLockService.MAX_RECHECK_INTERVAL);
        assertThat(token).isGreaterThan(held.fencingToken());
        pool.shutdown();
    }

    @Test
    void holderThatAsksAgainAtOnceDoesNotBargeAheadOfAWaiter() throws Exception {
        RedisLockService a = nodes.node(server, config);
        RedisLockService b = nodes.node(server, config);
        StringRedisTemplate redis = nodes.redis(server);
        LockHandle first = a.lock("polite");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Long> waiter = pool.submit(() -> {
            try (LockHandle handle = b.lock("polite", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)))) {
                return handle.fencingToken();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> Boolean.TRUE.equals(redis.hasKey("test:{polite}:waiters")));
        first.unlock();
        long again;
        try (LockHandle second = a.lock("polite", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)))) {
            again = second.fencingToken();
        }
        assertThat(waiter.get(10, TimeUnit.SECONDS)).as("the waiter went first").isLessThan(again);
        pool.shutdown();
    }

    @Test
    void releasesHandTheLockToWaitersInArrivalOrder() throws Exception {
        RedisLockService holder = nodes.node(server, config);
        StringRedisTemplate redis = nodes.redis(server);
        LockHandle first = holder.lock("queue");
        java.util.List<Integer> order = new java.util.concurrent.CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            int id = i;
            RedisLockService node = nodes.node(server, config);
            waiters.add(pool.submit(() -> {
                try (LockHandle handle = node.lock("queue", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)))) {
                    order.add(id);
                }
                return null;
            }));
            await().atMost(Duration.ofSeconds(5)).until(() -> redis.opsForZSet().size("test:{queue}:waiters") == id + 1);
        }
        first.unlock();
        for (Future<?> waiter : waiters) {
            waiter.get(10, TimeUnit.SECONDS);
        }
        assertThat(order).containsExactly(0, 1, 2);
        pool.shutdown();
    }

    @Test
    void reentrantWithoutRoundTripReleasedAtOutermost() {
        RedisLockService a = nodes.node(server, config);
        RedisLockService b = nodes.node(server, config);
        StringRedisTemplate redis = nodes.redis(server);
        LockHandle outer = a.lock("re");
        long before = LockNodes.calls(redis, "evalsha");
        LockHandle inner = a.lock("re");
        assertThat(LockNodes.calls(redis, "evalsha")).isEqualTo(before);
        assertThat(inner.fencingToken()).isEqualTo(outer.fencingToken());
        assertThat(LockContext.current()).contains(inner);
        inner.unlock();
        assertThat(inner.isHeld()).isFalse();
        assertThat(outer.isHeld()).isTrue();
        assertThat(LockContext.current()).contains(outer);
        assertThat(b.tryLock("re", LockOptions.defaults().withWaitTime(Duration.ZERO))).isEmpty();
        outer.unlock();
        assertThat(LockContext.current()).isEmpty();
        Optional<LockHandle> other = b.tryLock("re", LockOptions.defaults().withWaitTime(Duration.ZERO));
        assertThat(other).isPresent();
        other.get().unlock();
    }

    @Test
    void unlockIsIdempotentAndReleaseMayHappenOnAnotherThread() throws Exception {
        RedisLockService a = nodes.node(server, config);
        RedisLockService b = nodes.node(server, config);
        LockHandle handle = a.lock("idem");
        Thread other = new Thread(handle::unlock);
        other.start();
        other.join();
        assertThat(handle.isHeld()).isFalse();
        LockHandle next = b.lock("idem");
        handle.unlock();
        handle.close();
        assertThat(next.isHeld()).isTrue();
        assertThat(a.tryLock("idem", LockOptions.defaults().withWaitTime(Duration.ZERO)))
                .as("the second unlock of the first handle did not release the new holder").isEmpty();
        next.unlock();
    }

    @Test
    void fixedLeaseExpiresAndExpiredReleaseIsNotThrown() {
        RedisLockService a = nodes.node(server, config);
        RedisLockService b = nodes.node(server, config);
        LockHandle fixed = a.lock("fixed", LockOptions.defaults().withLeaseTime(Duration.ofMillis(300)));
        LockHandle next = b.lock("fixed", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)));
        assertThat(fixed.isHeld()).isFalse();
        assertThat(next.fencingToken()).isGreaterThan(fixed.fencingToken());
        fixed.unlock(); // reported, not thrown
        assertThat(next.isHeld()).isTrue();
        assertThat(a.tryLock("fixed", LockOptions.defaults().withWaitTime(Duration.ZERO))).isEmpty();
        next.unlock();
        Optional<LockHandle> again = a.tryLock("fixed", LockOptions.defaults().withWaitTime(Duration.ZERO));
        assertThat(again).isPresent();
        again.get().unlock();
    }

    @Test
    void watchdogKeepsTheLockPastSeveralLeases() throws Exception {
        RedisLockConfig shortLease = config.withLeaseTime(Duration.ofSeconds(1));
        RedisLockService a = nodes.node(server, shortLease);
        RedisLockService b = nodes.node(server, shortLease);
        StringRedisTemplate redis = nodes.redis(server);
        try (LockHandle handle = a.lock("long-work")) {
            Thread.sleep(3500); // the behaviour under test: work that outlasts three leases
            assertThat(handle.isHeld()).isTrue();
            assertThat(redis.hasKey("test:{long-work}")).isTrue();
            assertThat(b.tryLock("long-work", LockOptions.defaults().withWaitTime(Duration.ZERO))).isEmpty();
            assertThat(a.heldLocks()).singleElement().satisfies(info -> assertThat(info.renewals()).isPositive());
        }
    }

    @Test
    void leaseLostWhenKeyIsDeletedExternally() {
        RedisLockConfig throwing = config.withLeaseTime(Duration.ofMillis(300)).withOnLeaseLost(OnLeaseLost.THROW);
        RedisLockService a = nodes.node(server, throwing);
        StringRedisTemplate redis = nodes.redis(server);
        LockHandle handle = a.lock("deleted");
        redis.delete("test:{deleted}");
        await().atMost(Duration.ofSeconds(3)).until(() -> !handle.isHeld());
        assertThat(a.heldLocks()).isEmpty();
        assertThatThrownBy(handle::unlock).isInstanceOf(LeaseLostException.class).hasMessageContaining("deleted");
    }

    @Test
    void leaseLossOnlyLoggedByDefault() {
        RedisLockService a = nodes.node(server, config.withLeaseTime(Duration.ofMillis(300)));
        StringRedisTemplate redis = nodes.redis(server);
        LockHandle handle = a.lock("deleted-log");
        redis.delete("test:{deleted-log}");
        await().atMost(Duration.ofSeconds(3)).until(() -> !handle.isHeld());
        handle.unlock();
        Optional<LockHandle> again = a.tryLock("deleted-log", LockOptions.defaults().withWaitTime(Duration.ZERO));
        assertThat(again).isPresent();
        again.get().unlock();
    }

    @Test
    void fencingTokensIncreaseAcrossFiftyAlternatingHolders() {
        RedisLockService[] services = { nodes.node(server, config), nodes.node(server, config) };
        long last = 0;
        for (int i = 0; i < 50; i++) {
            try (LockHandle handle = services[i % 2].lock("fenced")) {
                assertThat(handle.fencingToken()).isGreaterThan(last);
                last = handle.fencingToken();
            }
        }
    }

    @Test
    void fencingTokensIncreaseAfterAnIdleLockWasForgotten() {
        RedisLockService a = nodes.node(server, config.withFencingIdleTime(Duration.ofMillis(200)));
        StringRedisTemplate redis = nodes.redis(server);
        long first;
        try (LockHandle handle = a.lock("idle")) {
            first = handle.fencingToken();
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> !Boolean.TRUE.equals(redis.hasKey("test:{idle}")));
        long second;
        try (LockHandle handle = a.lock("idle")) {
            second = handle.fencingToken();
            assertThat(second).isGreaterThan(first);
        }
        // Even a token lost with all data (a restart without persistence) restarts above, from the server clock.
        redis.delete("test:{idle}");
        try (LockHandle handle = a.lock("idle")) {
            assertThat(handle.fencingToken()).isGreaterThan(second);
        }
    }

    @Test
    void noLocalStateLeftAfterManyDistinctKeys() {
        RedisLockService a = nodes.node(server, config);
        for (int i = 0; i < 20_000; i++) {
            a.lock("k" + i, LockOptions.defaults().withLeaseTime(Duration.ofSeconds(10))).unlock();
        }
        assertThat(a.localStateSize()).isZero();
        assertThat(a.heldLocks()).isEmpty();
        assertThat(a.watchdogStatus().renewedLeases()).isZero();
        StringRedisTemplate redis = nodes.redis(server);
        assertThat(redis.getExpire("test:{k19999}")).as("free lock keys expire when idle").isPositive();
        assertThat(redis.keys("test:{k19999}*")).containsExactly("test:{k19999}");
    }

    @Test
    void shutdownReleasesHeldLocks() {
        LockNodes own = new LockNodes();
        RedisLockService a = own.node(server, config);
        RedisLockService b = nodes.node(server, config);
        a.lock("shutdown");
        own.close();
        assertThat(LockContext.current()).isEmpty();
        Optional<LockHandle> taken = b.tryLock("shutdown", LockOptions.defaults().withWaitTime(Duration.ZERO));
        assertThat(taken).isPresent();
        taken.get().unlock();
    }
}
