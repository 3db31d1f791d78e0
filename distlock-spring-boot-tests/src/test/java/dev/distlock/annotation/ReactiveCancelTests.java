package dev.distlock.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.annotation.LockedBeans.Reactive;
import dev.distlock.autoconfigure.DistlockAnnotationAutoConfiguration;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.redis.autoconfigure.DistlockRedisAutoConfiguration;
import dev.distlock.core.HeldLockRegistry;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.listener.AcquireEvent;
import dev.distlock.listener.AcquireResult;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.ReleaseResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.Disposable;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Reactive methods on a real Redis whose subscriptions are cancelled at any moment — {@code dispose()},
 * {@code timeout()}, a client disconnect — in particular between the grant and the delivery of the handle to the
 * subscription: the lock must never stay held (and renewed by the watchdog) for a subscription that is gone.
 */
class ReactiveCancelTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
    }

    @AfterEach
    void emptyRedis() {
        server.call("FLUSHALL");
    }

    private ApplicationContextRunner node() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
                        DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class,
                        DistlockAnnotationAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + server.host(),
                        "spring.data.redis.port=" + server.port(), "distlock.key-prefix=rxc")
                .withUserConfiguration(LockedBeans.Config.class);
    }

    private static boolean isFree(LockService otherNode, String name) {
        Optional<LockHandle> handle = otherNode.tryLock(name, LockOptions.defaults().withWaitTime(Duration.ZERO));
        handle.ifPresent(LockHandle::unlock);
        return handle.isPresent();
    }

    /** The locks' keys (the instance's holder key stays while it runs). */
    private static long keysInRedis() {
        return ((List<?>) server.call("KEYS", "rxc:{*")).size();
    }

    @Test
    void aHandleGrantedAfterTheSubscriptionWasCancelledIsReleased() {
        GrantGate gate = new GrantGate("rx:late");
        node().run(other -> node().withBean("gate", LockListener.class, () -> gate).run(context -> {
            Reactive reactive = context.getBean(Reactive.class);
            Disposable subscription = reactive.step("late", "v").subscribe();
            assertThat(gate.granted.await(10, TimeUnit.SECONDS)).as("granted").isTrue();
            // The lock is granted, the handle not yet delivered: the subscriber goes away now.
            subscription.dispose();
            gate.proceed.countDown();
            await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> {
                assertThat(context.getBean(HeldLockRegistry.class).heldLocks()).isEmpty();
                assertThat(keysInRedis()).isZero();
            });
            assertThat(isFree(other.getBean(LockService.class), "rx:late")).isTrue();
            assertThat(reactive.invocations()).as("the method never ran").isZero();
            assertThat(gate.releases).as("released and confirmed by Redis, although the cancel interrupted the "
                    + "granted thread").containsExactly(ReleaseResult.RELEASED);
        }));
    }

    @Test
    void thousandsOfRandomlyTimedCancelsAndTimeoutsLeaveNoLockHeld() {
        ReleaseResults results = new ReleaseResults();
        node().run(other -> node().withBean("results", LockListener.class, () -> results).run(context -> {
            Reactive reactive = context.getBean(Reactive.class);
            List<String> names = new ArrayList<>();
            for (int i = 0; i < 2000; i++) {
                String key = "d" + i;
                names.add("rx:" + key);
                Disposable subscription = reactive.step(key, "v").subscribe();
                // The random moment of the cancel is the behaviour under test, not a synchronisation.
                LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(0, 2_000_000));
                subscription.dispose();
            }
            for (int i = 0; i < 1000; i++) {
                String key = "t" + i;
                names.add("rx:" + key);
                reactive.step(key, "v")
                        .timeout(Duration.ofNanos(ThreadLocalRandom.current().nextLong(1, 2_000_000)))
                        .subscribe(value -> { }, error -> { });
            }
            HeldLockRegistry registry = context.getBean(HeldLockRegistry.class);
            await().atMost(Duration.ofSeconds(20)).untilAsserted(() -> {
                assertThat(registry.heldLocks()).isEmpty();
                assertThat(keysInRedis()).isZero();
            });
            LockService otherNode = other.getBean(LockService.class);
            assertThat(names).allSatisfy(name -> assertThat(isFree(otherNode, name)).as(name).isTrue());
            // A late grant is released on the thread the cancel interrupted: the release must still be confirmed.
            assertThat(results.unconfirmed).as("releases not confirmed by Redis").isEmpty();
        }));
    }

    /** The releases whose result is not a confirmed release. */
    static final class ReleaseResults implements LockListener {

        final List<String> unconfirmed = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void released(LockHandle handle, ReleaseResult result) {
            if (result != ReleaseResult.RELEASED) {
                unconfirmed.add(handle.name() + "=" + result);
            }
        }
    }

    /** Holds the thread that was just granted a lock until the test lets it go on (a slow listener, a GC pause). */
    static final class GrantGate implements LockListener {

        final CountDownLatch granted = new CountDownLatch(1);

        final CountDownLatch proceed = new CountDownLatch(1);

        final List<ReleaseResult> releases = new java.util.concurrent.CopyOnWriteArrayList<>();

        private final String name;

        GrantGate(String name) {
            this.name = name;
        }

        @Override
        public void released(LockHandle handle, ReleaseResult result) {
            if (handle.name().equals(name)) {
                releases.add(result);
            }
        }

        @Override
        public void acquireFinished(AcquireEvent event) {
            if (!event.name().equals(name) || event.result() != AcquireResult.ACQUIRED) {
                return;
            }
            granted.countDown();
            boolean interrupted = false;
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
            while (proceed.getCount() > 0 && deadline - System.nanoTime() > 0) {
                try {
                    proceed.await(deadline - System.nanoTime(), TimeUnit.NANOSECONDS);
                }
                catch (InterruptedException ex) {
                    // The cancel interrupts this thread; the grant still goes on, as after any slow listener.
                    interrupted = true;
                }
            }
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
