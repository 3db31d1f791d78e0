package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockType;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.ReleaseResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * What the Redis store does on the wire, against a real Redis: round trips, keys left behind, hand-off order and
 * wake-ups, key names, and where its connection is opened.
 */
class RedisLockStoreTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    private final LockNodes nodes = new LockNodes();

    private final LockConfig config = LockConfig.defaults().withWaitTime(Duration.ofSeconds(5));

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
    }

    @AfterEach
    void close() {
        nodes.close();
    }

    private StoreLockService node() {
        return nodes.node(server, config, LockNodes.redisConfig("test"));
    }

    @Test
    void uncontendedAcquireAndReleaseAreOneRoundTripEachAndLeaveNoKey() {
        StoreLockService a = node();
        StringRedisTemplate redis = nodes.redis(server);
        a.lock("warm-up").unlock(); // loads the scripts
        long before = LockNodes.calls(redis, "evalsha");
        LockHandle handle = a.lock("uncontended");
        assertThat(LockNodes.calls(redis, "evalsha") - before).isEqualTo(1);
        assertThat(redis.opsForValue().get("test:{uncontended}")).endsWith(":" + handle.fencingToken());
        handle.unlock();
        assertThat(LockNodes.calls(redis, "evalsha") - before).isEqualTo(2);
        assertThat(redis.keys("test:{uncontended}*")).as("a released lock leaves no key behind").isEmpty();
    }

    @Test
    void aReleaseByAnOwnerThatOnlyStartsTheHoldersIsRefused() {
        try (RedisLockStore store = new RedisLockStore(nodes.factory(server), LockNodes.redisConfig("test"))) {
            LockRequest request = new LockRequest("prefixed", LockType.REENTRANT, "owner", Duration.ZERO,
                    Duration.ofSeconds(30), false);
            String holder = "owner|" + HolderKeys.reference(request.holder()) + "X"; // another owner, same start
            StringRedisTemplate redis = nodes.redis(server);
            redis.opsForValue().set("test:{prefixed}", holder + ":1", Duration.ofSeconds(30));
            assertThat(store.release(new TestLease(request, 1)).toCompletableFuture().join())
                    .isEqualTo(ReleaseResult.EXPIRED);
            assertThat(redis.opsForValue().get("test:{prefixed}")).isEqualTo(holder + ":1");
        }
    }

    @Test
    void byDefaultAMasterWithoutReplicaCostsNoWaitAndNoRoundTripPerAcquire() {
        StoreLockService a = node(); // distlock.replication.min-replicas=auto, the default
        StringRedisTemplate redis = nodes.redis(server);
        a.lock("warm-up").unlock(); // opens the connections; the acquiring one reads INFO replication once
        long infosBefore = LockNodes.calls(redis, "info"); // (each look is an INFO commandstats itself)
        long evalsBefore = LockNodes.calls(redis, "evalsha");
        for (int i = 0; i < 50; i++) {
            a.lock("no-replica-" + i).unlock();
        }
        long infos = LockNodes.calls(redis, "info") - infosBefore - 2;
        assertThat(LockNodes.calls(redis, "evalsha") - evalsBefore).as("one script per acquire and per release")
                .isEqualTo(100);
        assertThat(LockNodes.calls(redis, "wait")).as("no WAIT on a master without replicas").isZero();
        assertThat(infos).as("the replica count is known, refreshed at most every few seconds in the background")
                .isLessThanOrEqualTo(1);
    }

    @Test
    void manyDistinctNamesLeaveNoLocalStateAndNoKeys() {
        StoreLockService a = node();
        // A name's local state and keys go at its release, so a leak shows after the first name; 2,000 names (each
        // a sequential round trip) show a slow one as well as 20,000 did, in a tenth of the time.
        for (int i = 0; i < 2_000; i++) {
            a.lock("k" + i, LockOptions.defaults().withLeaseTime(Duration.ofSeconds(10))).unlock();
        }
        assertThat(a.heldLocks()).isEmpty();
        assertThat(a.watchdogStatus().renewedLeases()).isZero();
        assertThat(nodes.redis(server).keys("test:{k*")).isEmpty();
    }

    @Test
    void waiterIsWokenByTheReleaseNotification() throws Exception {
        StoreLockService a = node();
        StoreLockService b = node();
        StringRedisTemplate redis = nodes.redis(server);
        await().atMost(Duration.ofSeconds(5)).until(() -> nodes.storeOf(b).isSubscribed());
        LockHandle held = a.lock("wake");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<Long> waiter = pool.submit(() -> {
            try (LockHandle handle = b.lock("wake", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20)))) {
                return System.nanoTime();
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> Boolean.TRUE.equals(redis.hasKey("test:{wake}:waiters")));
        long released = System.nanoTime();
        held.unlock();
        long acquired = waiter.get(10, TimeUnit.SECONDS);
        // Woken by pub/sub, well before the 30 s lease or the 500 ms re-check would let it in.
        assertThat(Duration.ofNanos(acquired - released)).isLessThan(Duration.ofMillis(300));
        pool.shutdown();
    }

    @Test
    void holderThatAsksAgainAtOnceDoesNotBargeAheadOfAWaiter() throws Exception {
        StoreLockService a = node();
        StoreLockService b = node();
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
    void releasesHandTheLockToWaitersInArrivalOrderNotByDeadline() throws Exception {
        StoreLockService holder = node();
        StringRedisTemplate redis = nodes.redis(server);
        LockHandle first = holder.lock("queue");
        List<Integer> order = new CopyOnWriteArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(3);
        List<Future<?>> waiters = new ArrayList<>();
        // Each newcomer waits less than the one before: serving by deadline would reverse the order.
        long[] waits = { 30, 10, 5 };
        for (int i = 0; i < 3; i++) {
            int id = i;
            StoreLockService node = node();
            waiters.add(pool.submit(() -> {
                try (LockHandle handle = node.lock("queue", LockOptions.defaults()
                        .withWaitTime(Duration.ofSeconds(waits[id])))) {
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
    void namesWithBracesKeepAllTheirKeysInOneSlot() {
        StoreLockService a = node();
        StoreLockService b = node();
        for (String name : List.of("}x", "a}b", "{c}", "order:{42}", "}")) {
            try (LockHandle held = a.lock(name)) {
                assertThat(b.tryLock(name, LockOptions.defaults().withWaitTime(Duration.ZERO))).as(name).isEmpty();
            }
            assertThat(LockKeys.lockKey("test", name)).startsWith("test:{#").contains("}:" + name);
        }
        assertThat(LockKeys.lockKey("test", "plain")).isEqualTo("test:{plain}");
        assertThat(LockKeys.lockKey("test", "a}b")).isNotEqualTo(LockKeys.lockKey("test", "a") + "b}");
    }

    @Test
    void theFirstConnectionIsOpenedOnADistlockThreadNotACommonPoolWorker() {
        AtomicReference<String> openedOn = new AtomicReference<>();
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(server.host(), server.port())) {
            @Override
            public io.lettuce.core.AbstractRedisClient getRequiredNativeClient() {
                openedOn.compareAndSet(null, Thread.currentThread().getName());
                return super.getRequiredNativeClient();
            }
        };
        factory.afterPropertiesSet();
        factory.start();
        try {
            StoreLockService a = nodes.node(factory, config, LockNodes.redisConfig("test"), LockListener.NONE);
            a.lock("connect").unlock();
            assertThat(openedOn.get()).isEqualTo("distlock-redis-connect");
        }
        finally {
            nodes.close();
            factory.destroy();
        }
    }

    @Test
    void aZeroWaitAttemptIsNotRecordedAsAWaiter() {
        StoreLockService a = node();
        StoreLockService b = node();
        StringRedisTemplate redis = nodes.redis(server);
        try (LockHandle held = a.lock("try-once")) {
            Optional<LockHandle> none = b.tryLock("try-once", LockOptions.defaults().withWaitTime(Duration.ZERO));
            assertThat(none).isEmpty();
            assertThat(redis.hasKey("test:{try-once}:waiters")).isFalse();
            assertThat(redis.opsForValue().get("test:{try-once}")).doesNotEndWith("+");
        }
    }

    @Test
    void everyKeyStartsWithThePrefixAndTheReleaseChannelToo() throws Exception {
        StoreLockService a = nodes.node(server, config, LockNodes.redisConfig("shop-locks"));
        StoreLockService b = nodes.node(server, config, LockNodes.redisConfig("shop-locks"));
        StringRedisTemplate redis = nodes.redis(server);
        LockHandle held = a.lock("ns");
        CountDownLatch waiting = new CountDownLatch(1);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<?> waiter = pool.submit(() -> {
            waiting.countDown();
            b.lock("ns", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10))).unlock();
            return null;
        });
        waiting.await();
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.keys("*").size() >= 2);
        assertThat(redis.keys("*")).allMatch(key -> key.startsWith("shop-locks:"));
        Object channels = redis.execute((org.springframework.data.redis.core.RedisCallback<Object>) c -> c
                .execute("PUBSUB", "CHANNELS".getBytes()));
        // One channel comes back as a bulk string (Lettuce flattens a one-element reply).
        assertThat(channels instanceof byte[] bytes ? new String(bytes) : String.valueOf(channels))
                .isEqualTo("shop-locks:released");
        held.unlock();
        waiter.get(10, TimeUnit.SECONDS);
        pool.shutdown();
    }

    /**
     * A Redlock master's store ({@link RedisLockConfig#redlockMaster()}): the released lock leaves
     * {@code "!<token>"} for a second (within the 2 s lease here), a free name to everyone. {@code RedlockClockTests}
     * shows why, on masters whose clocks disagree.
     */
    @Test
    void aStoreThatKeepsReleasedTokensLeavesTheTokenForASecondOnAFreeName() {
        StoreLockService a = keepingTokens();
        StringRedisTemplate redis = nodes.redis(server);
        LockHandle handle = a.lock("released");
        handle.unlock();
        assertThat(redis.opsForValue().get("kept:{released}")).isEqualTo("!" + handle.fencingToken());
        assertThat(redis.getExpire("kept:{released}", TimeUnit.MILLISECONDS)).as("a second, within the 2 s lease")
                .isBetween(1L, RedisLockStore.KEPT_TOKEN_MILLIS);
        assertThat(a.describe("released")).as("free to describe").isEmpty();
        assertThat(a.forceRelease("released")).as("nobody to force out").isFalse();
        assertThat(redis.opsForValue().get("kept:{released}")).as("the force release kept it")
                .isEqualTo("!" + handle.fencingToken());
        await("the kept token expires").atMost(Duration.ofSeconds(10))
                .until(() -> !Boolean.TRUE.equals(redis.hasKey("kept:{released}")));
    }

    @Test
    void theNextTokenIsAboveAKeptOneForEveryLockType() {
        StoreLockService a = keepingTokens();
        StringRedisTemplate redis = nodes.redis(server);
        long ahead = 9_000_000_000_000_000L; // far above the server clock (µs), as a master ahead issues it
        LockOptions now = LockOptions.defaults().withWaitTime(Duration.ZERO);
        redis.opsForValue().set("kept:{exclusive}", "!" + ahead, Duration.ofSeconds(2));
        redis.opsForValue().set("kept:{shared}", "!" + ahead, Duration.ofSeconds(2));
        // As an older version's refusal leaves it: it took the kept token for a held lock and flagged it.
        redis.opsForValue().set("kept:{permits}", "!" + ahead + "+", Duration.ofSeconds(2));
        try (LockHandle exclusive = a.tryLock("exclusive", now).orElseThrow();
                LockHandle shared = a.tryLock("shared", now.withType(LockType.READ)).orElseThrow();
                LockHandle permit = a.tryLock("permits", now.withPermits(2)).orElseThrow()) {
            assertThat(exclusive.fencingToken()).isEqualTo(ahead + 1);
            assertThat(shared.fencingToken()).isEqualTo(ahead + 1);
            assertThat(permit.fencingToken()).isEqualTo(ahead + 1);
        }
    }

    private StoreLockService keepingTokens() {
        return nodes.node(server, config.withLeaseTime(Duration.ofSeconds(2)),
                LockNodes.redisConfig("kept").asRedlockMaster());
    }
}
