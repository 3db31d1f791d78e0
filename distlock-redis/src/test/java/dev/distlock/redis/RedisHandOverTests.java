package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The hand-over against a real Redis: a release hands the lock to the longest waiter with its fencing token
 * ({@code release.lua}), and that waiter starts at once while its next attempt confirms the lock; one the store does
 * not confirm is a lost lease. The waiter's confirmations are held back at a gate, so what the waiter does before
 * the store answered is seen, not timed.
 */
class RedisHandOverTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private RedisServerProcess server;

    private final LockNodes nodes = new LockNodes();

    private final LockConfig config = LockConfig.defaults().withWaitTime(Duration.ofSeconds(10));

    private final ExecutorService pool = Executors.newSingleThreadExecutor();

    @BeforeEach
    void startRedis() throws Exception {
        server = redisServers.start();
        if (!warmedUp) {
            warmUp();
            warmedUp = true;
        }
    }

    /** Whether this JVM has run a hand-over already. */
    private static boolean warmedUp;

    /**
     * One hand-over without a gate, once per JVM: the first one runs cold (class loading on the notification's path)
     * and may take longer than half the 100 ms window, after which the waiter asks the store instead of starting on
     * the hand-over, which is what these tests look at.
     */
    private void warmUp() throws Exception {
        try (LockNodes warm = new LockNodes()) {
            StoreLockService holder = warm.node(server, "warm");
            StoreLockService waiter = warm.node(server, "warm");
            await().atMost(Duration.ofSeconds(10)).until(() -> warm.storeOf(waiter).isSubscribed());
            LockHandle held = holder.lock("item");
            Future<LockHandle> waiting = pool.submit(() -> waiter.lock("item"));
            StringRedisTemplate redis = warm.redis(server);
            // Generous bounds: the first hand-over of a JVM on a busy machine is what this waits out.
            await().atMost(Duration.ofSeconds(30)).until(() -> redis.opsForZSet().size("warm:{item}:waiters") == 1);
            held.unlock();
            waiting.get(30, TimeUnit.SECONDS).unlock();
        }
    }

    @AfterEach
    void close() {
        pool.shutdownNow();
        nodes.close();
        server.stop();
    }

    @Test
    void aWaiterHandedTheLockStartsBeforeItsConfirmationAnswers() throws Exception {
        Scene scene = waiterQueuedBehindAHolder("hand", config, pool);
        StringRedisTemplate redis = scene.redis();
        GatedConfirmations gate = scene.gate();
        LockHandle held = scene.held();
        held.unlock();
        LockHandle handed = scene.waiting().get(5, TimeUnit.SECONDS);
        int sentWhenStarted = gate.sent.get();
        String beforeConfirmation = redis.opsForValue().get("hand:{item}");
        // The gate opens before anything is asserted: the hand-over lasts 100 ms, and a JVM's first assertion may
        // take as long (class loading), after which the unconfirmed lease would be lost by its deadline.
        gate.open.countDown();
        assertThat(sentWhenStarted).as("no confirmation had been sent when the waiter started").isZero();
        assertThat(handed.fencingToken()).isGreaterThan(held.fencingToken());
        assumeHandedOver(beforeConfirmation);
        assertThat(beforeConfirmation).as("handed over, not yet confirmed")
                .startsWith("=").endsWith(":" + handed.fencingToken());

        await().atMost(Duration.ofSeconds(5)).until(() -> gate.sent.get() == 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !redis.opsForValue().get("hand:{item}").startsWith("="));
        assertThat(redis.opsForValue().get("hand:{item}")).as("confirmed with the same token")
                .endsWith(":" + handed.fencingToken());
        assertThat(redis.getExpire("hand:{item}", TimeUnit.MILLISECONDS)).as("the full lease")
                .isGreaterThan(RedisLockStore.HANDOFF_WINDOW_MILLIS * 10);
        assertThat(handed.isHeld()).isTrue();
        assertThat(scene.holder().tryLock("item", LockOptions.defaults().withWaitTime(Duration.ZERO))).isEmpty();
        handed.unlock(); // released as the owner: a lost lease would throw here
        assertThat(redis.hasKey("hand:{item}")).isFalse();
    }

    @Test
    void aHandOverTheStoreDoesNotConfirmIsALostLease() throws Exception {
        Scene scene = waiterQueuedBehindAHolder("lost", config, pool);
        StringRedisTemplate redis = scene.redis();
        scene.held().unlock();
        LockHandle handed = scene.waiting().get(5, TimeUnit.SECONDS);
        assertThat(handed.isHeld()).isTrue();
        assumeHandedOver(redis.opsForValue().get("lost:{item}"));
        // The hand-over ends before the confirmation is sent (as when it comes later than the window): the lock is
        // free, and the confirmation takes nothing.
        redis.delete("lost:{item}");
        scene.gate().open.countDown();

        await().atMost(Duration.ofSeconds(5)).until(() -> !handed.isHeld());
        assertThat(scene.gate().answers).singleElement().isInstanceOf(Attempt.Busy.class);
        assertThat(redis.hasKey("lost:{item}")).isFalse();
        try (LockHandle next = scene.holder().lock("item")) {
            assertThat(next.fencingToken()).isGreaterThan(handed.fencingToken());
        }
    }

    @Test
    void aWaiterThatReleasesBeforeItsConfirmationRanReleasesTheLock() throws Exception {
        Scene scene = waiterQueuedBehindAHolder("early", config, pool);
        StringRedisTemplate redis = scene.redis();
        GatedConfirmations gate = scene.gate();
        scene.held().unlock();
        LockHandle handed = scene.waiting().get(5, TimeUnit.SECONDS);
        assumeHandedOver(redis.opsForValue().get("early:{item}"));
        handed.unlock(); // its confirmation is still held back: the release takes the hand-over by the owner token
        assertThat(gate.sent.get()).isZero();
        assertThat(redis.hasKey("early:{item}")).as("released, not left for the window to end").isFalse();

        // The confirmation reaches Redis after the release (it goes on the acquire connection, the release on
        // another): it takes nothing, where a grant anew would hold the free name until an undo came.
        gate.open.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> gate.answers.size() == 1);
        assertThat(gate.answers.get(0)).as("the late confirmation is refused").isInstanceOf(Attempt.Busy.class);
        assertThat(redis.hasKey("early:{item}")).as("and left no key").isFalse();
        try (LockHandle next = scene.holder().lock("item", LockOptions.defaults().withWaitTime(Duration.ofSeconds(1)))) {
            assertThat(next.fencingToken()).isGreaterThan(handed.fencingToken());
        }
    }

    @Test
    void aForceReleaseDuringAHandOverEndsItAndAnswersReleased() throws Exception {
        Scene scene = waiterQueuedBehindAHolder("forced", config, pool);
        StringRedisTemplate redis = scene.redis();
        StoreLockService operator = nodes.node(server, config, LockNodes.redisConfig("forced"));
        scene.held().unlock();
        LockHandle handed = scene.waiting().get(5, TimeUnit.SECONDS);
        // Stretch the 100 ms window so that this test's steps surely fall inside it; the script sees a hand-over.
        redis.expire("forced:{item}", Duration.ofSeconds(30));
        assumeHandedOver(redis.opsForValue().get("forced:{item}"));

        // DESIGN section 2: a name being handed over counts as held.
        assertThat(operator.forceRelease("item")).as("a name in its hand-over window is held").isTrue();
        assertThat(redis.hasKey("forced:{item}")).as("the hand-over ended, nobody else waited").isFalse();

        // The waiter's confirmation reaches a free key: granted with another token, which the engine refuses.
        scene.gate().open.countDown();
        await().atMost(Duration.ofSeconds(5)).until(() -> scene.gate().sent.get() == 1);
        await().atMost(Duration.ofSeconds(5)).until(() -> !handed.isHeld());
        await("the confirmation's grant is undone").atMost(Duration.ofSeconds(5))
                .until(() -> !redis.hasKey("forced:{item}"));
        LockOptions briefly = LockOptions.defaults().withWaitTime(Duration.ofSeconds(1));
        try (LockHandle next = scene.holder().lock("item", briefly)) {
            assertThat(next.fencingToken()).isGreaterThan(handed.fencingToken());
        }
    }

    @Test
    void aForceReleaseDuringAHandOverPassesItToTheNextWaiterAboveTheHandedToken() throws Exception {
        Scene scene = waiterQueuedBehindAHolder("forced-next", config, pool);
        StringRedisTemplate redis = scene.redis();
        StoreLockService second = subscribed(nodes.node(server, config, LockNodes.redisConfig("forced-next")));
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try {
            Future<LockHandle> secondWaiting = threads.submit(() -> second.lock("item"));
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> redis.opsForZSet().size("forced-next:{item}:waiters") == 2);
            scene.held().unlock();
            LockHandle handed = scene.waiting().get(5, TimeUnit.SECONDS);
            redis.expire("forced-next:{item}", Duration.ofSeconds(30));
            assumeHandedOver(redis.opsForValue().get("forced-next:{item}"));

            assertThat(scene.holder().forceRelease("item")).isTrue();
            LockHandle next = secondWaiting.get(5, TimeUnit.SECONDS);
            assertThat(next.fencingToken()).as("above the token of the ended hand-over")
                    .isGreaterThan(handed.fencingToken());
            scene.gate().open.countDown();
            await().atMost(Duration.ofSeconds(5)).until(() -> !handed.isHeld());
            await().atMost(Duration.ofSeconds(5))
                    .until(() -> !redis.opsForValue().get("forced-next:{item}").startsWith("="));
            assertThat(redis.opsForValue().get("forced-next:{item}")).as("the second waiter confirmed its own token")
                    .endsWith(":" + next.fencingToken());
            assertThat(next.isHeld()).as("the first waiter's refused confirmation leaves it alone").isTrue();
            next.unlock();
        }
        finally {
            threads.shutdownNow();
        }
    }

    @Test
    void aHandOverPassedToAnotherLocalThreadBeforeItsConfirmationGetsTheFullLeaseWithIt() throws Exception {
        // A streak may last long enough for this test's steps.
        Scene scene = waiterQueuedBehindAHolder("local", config.withLocalHandOff(100, Duration.ofSeconds(30)), pool);
        StringRedisTemplate redis = scene.redis();
        ExecutorService threads = Executors.newSingleThreadExecutor();
        try {
            AtomicReference<Thread> second = new AtomicReference<>();
            Future<LockHandle> next = threads.submit(() -> {
                second.set(Thread.currentThread());
                return scene.waiter().lock("item");
            });
            await("the second thread queues behind the first, in this JVM").atMost(Duration.ofSeconds(5))
                    .until(() -> second.get() != null && String.valueOf(LockSupport.getBlocker(second.get()))
                            .contains("Semaphore"));

            scene.held().unlock();
            LockHandle handed = scene.waiting().get(5, TimeUnit.SECONDS);
            handed.unlock(); // before the confirmation was sent: the lease goes to the queued thread
            LockHandle passedOn = next.get(5, TimeUnit.SECONDS);
            assertThat(scene.gate().sent.get()).isZero();
            assertThat(passedOn.fencingToken()).as("a local hand-off's next token")
                    .isEqualTo(handed.fencingToken() + 1);

            scene.gate().open.countDown();
            await().atMost(Duration.ofSeconds(5)).until(() -> !redis.opsForValue().get("local:{item}").startsWith("="));
            assertThat(scene.waiter().heldLocks()).singleElement().satisfies(info -> assertThat(info.leaseRemaining())
                    .as("the full lease, from the confirmation").isGreaterThan(Duration.ofSeconds(5)));
            assertThat(passedOn.isHeld()).isTrue();
            passedOn.unlock();
            assertThat(redis.hasKey("local:{item}")).isFalse();
        }
        finally {
            threads.shutdownNow();
        }
    }

    /**
     * A holder node holding "item" and a waiter node, whose confirmations wait at the gate, queued behind it in
     * Redis (one thread of {@code threads} waits).
     */
    private Scene waiterQueuedBehindAHolder(String prefix, LockConfig waiterConfig, ExecutorService threads) {
        StoreLockService holder = subscribed(nodes.node(server, config, LockNodes.redisConfig(prefix)));
        GatedConfirmations gate = new GatedConfirmations();
        StoreLockService waiter = subscribed(nodes.node(server, waiterConfig, LockNodes.redisConfig(prefix),
                gate::wrap));
        StringRedisTemplate redis = nodes.redis(server);
        LockHandle held = holder.lock("item");
        Future<LockHandle> waiting = threads.submit(() -> waiter.lock("item"));
        await().atMost(Duration.ofSeconds(5)).until(() -> redis.opsForZSet().size(prefix + ":{item}:waiters") == 1);
        return new Scene(holder, waiter, gate, redis, held, waiting);
    }

    /**
     * Skips the rest of a test unless the name is in its hand-over window ({@code =} before the owner): on a busy
     * machine the waiter's own timed retry (not gated) may reach Redis before the hand-over's news reached the
     * waiter, and acquire.lua then grants it the name handed to it, with the hand-over's token. Legal, but not the
     * path these tests are about (seen in a CI run beside a fault campaign, and in a build with -T2).
     */
    private static void assumeHandedOver(String value) {
        Assumptions.assumeTrue(value != null && value.startsWith("="),
                "the waiter's own retry took the handed lock before the hand-over's news came (busy machine)");
    }

    private record Scene(StoreLockService holder, StoreLockService waiter, GatedConfirmations gate,
            StringRedisTemplate redis, LockHandle held, Future<LockHandle> waiting) {
    }

    private StoreLockService subscribed(StoreLockService node) {
        await().atMost(Duration.ofSeconds(10)).until(() -> nodes.storeOf(node).isSubscribed());
        return node;
    }

    /** Holds back the confirmations of hand-overs until the gate opens, and keeps the store's answers to them. */
    private static final class GatedConfirmations {

        final CountDownLatch open = new CountDownLatch(1);

        final AtomicInteger sent = new AtomicInteger();

        final List<Attempt> answers = new CopyOnWriteArrayList<>();

        LockStore wrap(LockStore store) {
            return new ForwardingLockStore(store) {
                @Override
                public CompletionStage<Attempt> confirm(LockRequest request) {
                    return CompletableFuture.runAsync(() -> {
                        try {
                            open.await();
                        }
                        catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                        }
                        sent.incrementAndGet();
                    }).thenCompose(opened -> super.confirm(request)).whenComplete((answer, error) -> {
                        if (answer != null) {
                            answers.add(answer);
                        }
                    });
                }
            };
        }
    }
}
