package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.spi.HandOverEvents;
import dev.distlock.spi.StoreEvents;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Waiter hygiene against a real Redis: a waiter that is gone costs one hand-off window at most (its hand-over,
 * with a token of its own, simply ends), a waiter that gives
 * up leaves the queue, live waiters are handed the lock at once, and release notifications work on a node that
 * started before its Redis.
 */
class RedisWaiterTests {

    private static final org.slf4j.Logger log = org.slf4j.LoggerFactory.getLogger(RedisWaiterTests.class);

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private RedisServerProcess server;

    private final LockNodes nodes = new LockNodes();

    private final LockConfig config = LockConfig.defaults().withWaitTime(Duration.ofSeconds(10));

    @BeforeEach
    void startRedis() {
        server = redisServers.start();
    }

    @AfterEach
    void close() {
        nodes.close();
        server.stop();
    }

    private StoreLockService node() {
        StoreLockService node = nodes.node(server, config, LockNodes.redisConfig("wait"));
        await().atMost(Duration.ofSeconds(10)).until(() -> nodes.storeOf(node).isSubscribed());
        return node;
    }

    @Test
    void aDeadWaiterHandedTheLockCostsOneHandOffWindowOnce() throws Exception {
        StoreLockService a = node();
        StoreLockService b = node();
        StringRedisTemplate redis = nodes.redis(server);
        // Hears the hand-overs as every node does.
        List<String> handOvers = new CopyOnWriteArrayList<>();
        ReleaseSubscriber tap = new ReleaseSubscriber(nodes.factory(server), LockKeys.channel("wait"),
                RedisLockStore.HANDOFF_WINDOW_MILLIS, name -> true);
        tap.start(StoreEvents.NONE, new HandOverEvents() {
            @Override
            public void kept(String name, String keptFor, Duration window) {
            }

            @Override
            public void handedOver(String name, String handedTo, long fencingToken, long handedAtMicros,
                    Duration window) {
                // The server's clock beside the token: never above it (the token is at least the clock).
                handOvers.add(handedTo + "=" + fencingToken + (handedAtMicros <= fencingToken ? "" : " clock ahead"));
            }
        });
        LockHandle held = a.lock("dead");
        // A waiter of a crashed JVM: queued first, and the holder flagged so that its release hands over.
        redis.opsForZSet().add("wait:{dead}:waiters", "gone0000000000000000000", 1);
        redis.opsForValue().append("wait:{dead}", "+");
        ExecutorService pool = Executors.newSingleThreadExecutor();
        Future<long[]> live = pool.submit(() -> {
            try (LockHandle handle = b.lock("dead")) {
                return new long[] { System.nanoTime(), handle.fencingToken() };
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.opsForZSet().size("wait:{dead}:waiters") == 2);
        await().atMost(Duration.ofSeconds(10)).until(tap::isSubscribed);
        long released = System.nanoTime();
        held.unlock();
        long[] acquired = live.get(10, TimeUnit.SECONDS);
        tap.close();
        assertThat(Duration.ofNanos(acquired[0] - released)).as("one window, not a 500 ms re-check")
                .isBetween(Duration.ofMillis(RedisLockStore.HANDOFF_WINDOW_MILLIS - 10), Duration.ofMillis(450));
        assertThat(redis.opsForZSet().score("wait:{dead}:waiters", "gone0000000000000000000"))
                .as("the gone waiter left the queue when it was handed the lock").isNull();
        assertThat(handOvers).as("the gone waiter was handed the lock with a token of its own, then the live one")
                .hasSize(1).first().asString().startsWith("gone0000000000000000000=");
        long goneToken = Long.parseLong(handOvers.get(0).substring(handOvers.get(0).indexOf('=') + 1));
        assertThat(goneToken).isGreaterThan(held.fencingToken());
        assertThat(acquired[1]).as("the next holder's token is above the one the gone waiter was given")
                .isGreaterThan(goneToken);
        // From now on hand-offs between the live nodes cost no window at all.
        List<Long> after = handOffMillis(a, b, "dead", 5);
        assertThat(after.stream().sorted().toList().get(2)).as("median of " + after).isLessThan(25);
        pool.shutdown();
    }

    @Test
    void permitWaitersAreServedInArrivalOrderAcrossNodes() throws Exception {
        StoreLockService holders = node();
        StoreLockService first = node();
        StoreLockService second = node();
        StringRedisTemplate redis = nodes.redis(server);
        LockOptions two = LockOptions.defaults().withPermits(2).withWaitTime(Duration.ofSeconds(20));
        LockHandle a = holders.lock("pool", two);
        LockHandle b = holders.lock("pool", two);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        try {
            Future<LockHandle> early = pool.submit(() -> first.lock("pool", two));
            await().atMost(Duration.ofSeconds(5)).until(() -> redis.opsForZSet().size("wait:{pool}:waiters") == 1);
            Future<LockHandle> late = pool.submit(() -> second.lock("pool", two));
            await().atMost(Duration.ofSeconds(5)).until(() -> redis.opsForZSet().size("wait:{pool}:waiters") == 2);

            a.unlock();
            LockHandle firstServed = early.get(10, TimeUnit.SECONDS);
            assertThat(late).as("the later waiter still waits: one permit freed").isNotDone();
            assertThat(firstServed.fencingToken()).isGreaterThan(b.fencingToken());
            b.unlock();
            LockHandle secondServed = late.get(10, TimeUnit.SECONDS);
            assertThat(secondServed.fencingToken()).isGreaterThan(firstServed.fencingToken());
            firstServed.unlock();
            secondServed.unlock();
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(redis.hasKey("wait:{pool}")).as("no key left once nobody holds a permit").isFalse();
        assertThat(redis.hasKey("wait:{pool}:permits")).isFalse();
    }

    @Test
    void aHolderWhoseOwnerTokenStartsWithAnyLetterIsALockHolderNotPermits() {
        StoreLockService node = node();
        StringRedisTemplate redis = nodes.redis(server);
        // Owner tokens are base64url: any letter may come first, and only a '#' marks a name held with permits.
        for (String first : List.of("p", "r", "w", "c", "f", "-", "_")) {
            redis.opsForValue().set("wait:{held-" + first + "}", first + "Zm9vYmFyYmF6cXV4MDEyMw:1700000000000000",
                    Duration.ofSeconds(30));
            assertThat(node.tryLock("held-" + first, LockOptions.defaults().withWaitTime(Duration.ZERO)))
                    .as("a lock held by a token starting with '%s'", first).isEmpty();
            assertThatThrownBy(() -> node.tryLock("held-" + first, LockOptions.defaults().withPermits(2)))
                    .isInstanceOf(LockException.class).hasMessageContaining("1 permit,");
        }
    }

    @Test
    void deadPermitWaitersWhoseHoldersDiedTooLeaveTheLine() {
        StoreLockService node = node();
        StringRedisTemplate redis = nodes.redis(server);
        // An instance died holding both permits (fixed leases, never renewed) with two of its threads in line.
        LockOptions two = LockOptions.defaults().withPermits(2);
        node.lock("orphaned", two.withLeaseTime(Duration.ofMillis(300)));
        node.lock("orphaned", two.withLeaseTime(Duration.ofMillis(300)));
        redis.opsForZSet().add("wait:{orphaned}:waiters", "gone0000000000000000001", 1);
        redis.opsForZSet().add("wait:{orphaned}:waiters", "gone0000000000000000002", 2);
        // No release ever comes: a newcomer still gets a permit once the dead waiters' reservations ran out.
        try (LockHandle newcomer = nodes.node(server, config, LockNodes.redisConfig("wait")).lock("orphaned",
                two.withWaitTime(Duration.ofSeconds(10)))) {
            assertThat(newcomer.isHeld()).isTrue();
            assertThat(redis.opsForZSet().size("wait:{orphaned}:waiters")).as("the dead waiters left the line")
                    .isZero();
        }
    }

    @Test
    void anInterruptedWaiterLeavesTheQueue() throws Exception {
        StoreLockService a = node();
        StoreLockService b = node();
        StringRedisTemplate redis = nodes.redis(server);
        LockHandle held = a.lock("interrupted");
        CountDownLatch started = new CountDownLatch(1);
        List<Throwable> failures = Collections.synchronizedList(new ArrayList<>());
        Thread waiter = new Thread(() -> {
            started.countDown();
            try {
                b.lock("interrupted", LockOptions.defaults().withWaitTime(Duration.ofSeconds(30))).unlock();
            }
            catch (RuntimeException ex) {
                failures.add(ex);
            }
        });
        waiter.start();
        started.await();
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.opsForZSet().size("wait:{interrupted}:waiters") == 1);
        waiter.interrupt();
        waiter.join(5000);
        assertThat(failures).singleElement().isInstanceOf(LockException.class);
        await().atMost(Duration.ofSeconds(2)).until(() -> !Boolean.TRUE.equals(redis.hasKey("wait:{interrupted}:waiters")));
        long released = System.nanoTime();
        held.unlock();
        assertThat(redis.hasKey("wait:{interrupted}")).as("no reservation for the gone waiter").isFalse();
        LockHandle next = a.lock("interrupted", LockOptions.defaults().withWaitTime(Duration.ZERO));
        assertThat(Duration.ofNanos(System.nanoTime() - released)).isLessThan(Duration.ofMillis(300));
        next.unlock();
    }

    @Test
    void aWaiterThatTimesOutLeavesTheQueueAndPassesOnAReservation() {
        StoreLockService a = node();
        StoreLockService b = node();
        StringRedisTemplate redis = nodes.redis(server);
        try (LockHandle held = a.lock("timeout")) {
            assertThatThrownBy(() -> b.lock("timeout", LockOptions.defaults().withWaitTime(Duration.ofMillis(300))))
                    .isInstanceOf(dev.distlock.LockTimeoutException.class);
            await().atMost(Duration.ofSeconds(2)).until(() -> !Boolean.TRUE.equals(redis.hasKey("wait:{timeout}:waiters")));
        }
        assertThat(redis.hasKey("wait:{timeout}")).isFalse();
    }

    @Test
    void liveWaitersOnTwoNodesGetTheLockWithoutWaitingForAWindow() {
        StoreLockService a = node();
        StoreLockService b = node();
        List<Long> millis = handOffMillis(a, b, "ping-pong", 60);
        List<Long> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        // A waiter that missed its reservation would take a whole window (100 ms) at least; on a loaded 2-core
        // machine a few hand-offs wait that long for a CPU, but not the typical one.
        assertThat(sorted.get(sorted.size() / 2)).as("median of " + sorted).isLessThan(25);
        assertThat(sorted.stream().filter(ms -> ms >= RedisLockStore.HANDOFF_WINDOW_MILLIS - 10).count())
                .as("hand-offs of a window or more in " + sorted).isLessThanOrEqualTo(sorted.size() / 10);
    }

    @Test
    void releaseNotificationsWorkOnANodeStartedBeforeItsRedis() {
        server.stop();
        StoreLockService early = nodes.node(server, config, LockNodes.redisConfig("wait"));
        server.start();
        await().atMost(Duration.ofSeconds(15)).until(() -> nodes.storeOf(early).isSubscribed());
        StoreLockService other = node();
        List<Long> millis = handOffMillis(other, early, "late-redis", 7);
        List<Long> sorted = new ArrayList<>(millis);
        Collections.sort(sorted);
        assertThat(sorted.get(sorted.size() / 2)).as("median hand-off " + sorted).isLessThan(50);
    }

    /**
     * The holder node holds the lock while the waiter node asks for it; measures, per round, the time from the
     * holder's release to the waiter's acquisition.
     */
    private List<Long> handOffMillis(StoreLockService holder, StoreLockService waiter, String name, int rounds) {
        StringRedisTemplate redis = nodes.redis(server);
        ExecutorService pool = Executors.newSingleThreadExecutor();
        List<Long> result = new ArrayList<>();
        try {
            for (int i = 0; i < rounds; i++) {
                LockHandle held = holder.lock(name);
                Future<Long> acquired = pool.submit(() -> {
                    try (LockHandle handle = waiter.lock(name)) {
                        return System.nanoTime();
                    }
                });
                await().atMost(Duration.ofSeconds(5)).until(() -> String.valueOf(redis.opsForValue()
                        .get("wait:{" + name + "}")).endsWith("+"));
                long released = System.nanoTime();
                held.unlock();
                result.add(TimeUnit.NANOSECONDS.toMillis(acquired.get(10, TimeUnit.SECONDS) - released));
            }
            log.info("Hand-off times of '{}' in ms: {}", name, result);
            return result;
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
        finally {
            pool.shutdown();
        }
    }
}
