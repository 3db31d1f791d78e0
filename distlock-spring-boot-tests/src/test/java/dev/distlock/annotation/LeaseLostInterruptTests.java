package dev.distlock.annotation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.LeaseLostException;
import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.OnLeaseLost;
import dev.distlock.autoconfigure.DistlockAnnotationAutoConfiguration;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockAdministration;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.redis.autoconfigure.DistlockRedisAutoConfiguration;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * {@code distlock.on-lease-lost=interrupt} (and the per-call and per-method policy) on a real Redis: a lease lost
 * while the work runs — its key deleted behind the holder's back, found by the watchdog's next renewal, or a force
 * release — stops the work (a blocking scope's thread interrupted, a subscription cancelled, a future completed
 * exceptionally) and the caller gets {@link LeaseLostException}; work that ended before the loss is never
 * interrupted afterwards; {@code log} and {@code throw} do not stop the work.
 */
class LeaseLostInterruptTests {

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

    /** A lease renewed every 300 ms: a deleted key is found gone within about that. */
    private ApplicationContextRunner node(String onLeaseLost) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
                        DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class,
                        DistlockAnnotationAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + server.host(),
                        "spring.data.redis.port=" + server.port(), "distlock.key-prefix=lli",
                        "distlock.lease-time=900ms", "distlock.on-lease-lost=" + onLeaseLost)
                .withUserConfiguration(Beans.class);
    }

    /** Deletes every lock key once {@code entered} is counted down: the holder's next renewal finds it gone. */
    private static void deleteKeysWhenEntered(CountDownLatch entered) {
        Thread deleter = new Thread(() -> {
            try {
                if (entered.await(10, TimeUnit.SECONDS)) {
                    server.call("FLUSHALL");
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }, "delete-keys");
        deleter.setDaemon(true);
        deleter.start();
    }

    @Test
    void blockingWorkIsInterruptedAtTheLossAndTheCallerGetsLeaseLostException() {
        node("interrupt").run(context -> {
            LockService locks = context.getBean(LockService.class);
            CountDownLatch entered = new CountDownLatch(1);
            deleteKeysWhenEntered(entered);
            assertThatThrownBy(() -> locks.callWithLock("report", LockOptions.defaults(), () -> {
                entered.countDown();
                new CountDownLatch(1).await(); // blocks until the loss interrupts it
                return "never";
            })).isInstanceOf(LeaseLostException.class).hasMessageContaining("'report'")
                    .satisfies(ex -> assertThat(ex.getSuppressed()).singleElement()
                            .isInstanceOf(InterruptedException.class));
            assertThat(Thread.currentThread().isInterrupted()).as("the loss's interrupt was taken back").isFalse();
        });
    }

    @Test
    void aLossAfterTheScopeEndedDoesNotInterruptTheThread() {
        node("interrupt").run(context -> {
            LockService locks = context.getBean(LockService.class);
            LockHandle handle = locks.lock("after", LockOptions.defaults());
            try (LockContext.Scope scope = LockContext.enter(handle)) {
                assertThat(LockContext.current()).contains(handle);
            }
            context.getBean(LockAdministration.class).forceRelease("after");
            assertThat(handle.isHeld()).isFalse();
            assertThat(Thread.currentThread().isInterrupted()).as("the scope had ended").isFalse();
            assertThatThrownBy(handle::unlock).isInstanceOf(LeaseLostException.class);
        });
    }

    /**
     * The race the guard is for: losses at random moments around the end of the scope, on a pooled thread. Whether
     * the loss came in time to stop the work or not, the code that runs on the thread after the scope (checked once
     * the loss was done: a force release tells this instance's holder before it returns) never finds an interrupt.
     * The check is in the same task: a thread pool clears the flag between tasks, which would hide a stray one.
     */
    @Test
    void lossesRacingTheEndOfTheScopeNeverLeaveAnInterruptOnThePooledThread() {
        node("interrupt").run(context -> {
            LockService locks = context.getBean(LockService.class);
            LockAdministration admin = context.getBean(LockAdministration.class);
            ExecutorService pool = Executors.newSingleThreadExecutor();
            AtomicInteger stopped = new AtomicInteger();
            AtomicInteger finished = new AtomicInteger();
            List<Integer> strayInterrupts = new CopyOnWriteArrayList<>();
            // How long a loss takes to arrive after the work starts (the random pause plus a force release's round
            // trip), averaged over the rounds so far. Work lengths spread over twice that, so the end of the scope
            // falls before, at and after the loss on a fast host and on a busy one alike.
            long lossNanosTotal = 500_000;
            try {
                for (int i = 0; i < 300; i++) {
                    int round = i;
                    CountDownLatch entered = new CountDownLatch(1);
                    CountDownLatch lossDone = new CountDownLatch(1);
                    long workNanos = ThreadLocalRandom.current().nextLong(0, 2 * lossNanosTotal / (i + 1) + 1);
                    var work = pool.submit(() -> {
                        try {
                            locks.runWithLock("race", () -> {
                                entered.countDown();
                                // Busy work that never checks the interrupt, of random length: the loss comes
                                // before, during or after the end of the scope.
                                long end = System.nanoTime() + workNanos;
                                while (System.nanoTime() < end) {
                                    Thread.onSpinWait();
                                }
                            });
                            finished.incrementAndGet();
                        }
                        catch (LeaseLostException ex) {
                            stopped.incrementAndGet();
                        }
                        try {
                            if (!lossDone.await(10, TimeUnit.SECONDS) || Thread.interrupted()) {
                                strayInterrupts.add(round);
                            }
                        }
                        catch (InterruptedException ex) {
                            strayInterrupts.add(round);
                        }
                    });
                    assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
                    long lossStart = System.nanoTime();
                    // The random moment of the loss is the behaviour under test, not a synchronisation.
                    LockSupport.parkNanos(ThreadLocalRandom.current().nextLong(0, 500_000));
                    admin.forceRelease("race");
                    lossNanosTotal += System.nanoTime() - lossStart;
                    lossDone.countDown();
                    work.get(10, TimeUnit.SECONDS);
                }
            }
            finally {
                pool.shutdownNow();
            }
            assertThat(strayInterrupts).as("rounds whose thread found an interrupt after the scope").isEmpty();
            assertThat(stopped.get() + finished.get()).isEqualTo(300);
            assertThat(stopped.get()).as("losses that came while the work ran").isPositive();
        });
    }

    @Test
    void theAnnotatedBlockingMethodIsInterrupted() {
        node("log").run(context -> {
            CountDownLatch entered = new CountDownLatch(1);
            deleteKeysWhenEntered(entered);
            assertThatThrownBy(() -> context.getBean(Work.class).blocking(entered))
                    .isInstanceOf(LeaseLostException.class).hasMessageContaining("'blocking'");
            assertThat(Thread.currentThread().isInterrupted()).isFalse();
        });
    }

    @Test
    void aMonoSubscriptionIsCancelledAndFailsWithLeaseLostException() {
        node("log").run(context -> {
            Work work = context.getBean(Work.class);
            CountDownLatch entered = new CountDownLatch(1);
            deleteKeysWhenEntered(entered);
            assertThatThrownBy(() -> work.mono(entered).block(Duration.ofSeconds(10)))
                    .isInstanceOf(LeaseLostException.class).hasMessageContaining("'mono'");
            assertThat(Work.cancelled).as("the method's publisher was cancelled").isTrue();
        });
    }

    @Test
    void aFluxSubscriptionIsCancelledAndFailsWithLeaseLostException() {
        node("log").run(context -> {
            Work work = context.getBean(Work.class);
            CountDownLatch entered = new CountDownLatch(1);
            deleteKeysWhenEntered(entered);
            List<Long> seen = new CopyOnWriteArrayList<>();
            assertThatThrownBy(() -> work.flux(entered).doOnNext(seen::add).blockLast(Duration.ofSeconds(10)))
                    .isInstanceOf(LeaseLostException.class).hasMessageContaining("'flux'");
            assertThat(Work.fluxCancelled).isTrue();
            assertThat(seen).as("values before the loss still arrived").isNotEmpty();
        });
    }

    @Test
    void aCompletionStageCompletesExceptionallyAndTheMethodsFutureIsCancelled() {
        node("log").run(context -> {
            Work work = context.getBean(Work.class);
            CountDownLatch entered = new CountDownLatch(1);
            CompletableFuture<String> returned = work.future(entered);
            deleteKeysWhenEntered(entered);
            assertThat(returned).failsWithin(Duration.ofSeconds(10)).withThrowableThat()
                    .withCauseInstanceOf(LeaseLostException.class).withMessageContaining("'future'");
            assertThat(Work.ownFuture.get()).as("the method's own future").isCancelled();
        });
    }

    @Test
    void logAndThrowLeaveTheWorkRunning() {
        node("log").run(context -> {
            LockService locks = context.getBean(LockService.class);
            for (OnLeaseLost policy : List.of(OnLeaseLost.LOG, OnLeaseLost.THROW)) {
                CountDownLatch entered = new CountDownLatch(1);
                deleteKeysWhenEntered(entered);
                AtomicBoolean ranToTheEnd = new AtomicBoolean();
                java.util.concurrent.Callable<String> call = () -> locks.callWithLock("policy-" + policy,
                        LockOptions.defaults().withOnLeaseLost(policy), () -> {
                            LockHandle handle = LockContext.current().orElseThrow();
                            entered.countDown();
                            await().atMost(Duration.ofSeconds(10)).until(() -> !handle.isHeld());
                            // A blocking step after the loss: interrupted only with INTERRUPT.
                            assertThat(new CountDownLatch(1).await(300, TimeUnit.MILLISECONDS)).isFalse();
                            ranToTheEnd.set(true);
                            return "done";
                        });
                if (policy == OnLeaseLost.LOG) {
                    assertThat(call.call()).isEqualTo("done");
                }
                else {
                    assertThatThrownBy(call::call).isInstanceOf(LeaseLostException.class)
                            .satisfies(ex -> assertThat(ex.getSuppressed()).isEmpty());
                }
                assertThat(ranToTheEnd).as(policy + " lets the work run to its end").isTrue();
            }
        });
    }

    @Test
    void anUnknownPolicyOnTheAnnotationFailsStartUpNamingTheAttribute() {
        node("log").withUserConfiguration(BadPolicy.class).run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("onLeaseLost").hasMessageContaining("sometimes"));
    }

    @Configuration(proxyBeanMethods = false)
    static class Beans {

        @Bean
        Work work() {
            return new Work();
        }
    }

    @Configuration(proxyBeanMethods = false)
    static class BadPolicy {

        @Bean
        Bad bad() {
            return new Bad();
        }
    }

    static class Bad {

        @DistributedLock(name = "bad", onLeaseLost = "sometimes")
        public void work() {
        }
    }

    /** Work that runs until it is stopped: each method signals {@code entered} once it holds the lock. */
    static class Work {

        // Static: the test reads them through the bean, a CGLIB proxy whose own fields are not the target's.
        static volatile boolean cancelled;

        static volatile boolean fluxCancelled;

        static final AtomicReference<CompletableFuture<String>> ownFuture = new AtomicReference<>();

        @DistributedLock(name = "blocking", onLeaseLost = "interrupt")
        public void blocking(CountDownLatch entered) throws InterruptedException {
            entered.countDown();
            new CountDownLatch(1).await();
        }

        @DistributedLock(name = "mono", onLeaseLost = "INTERRUPT")
        public Mono<String> mono(CountDownLatch entered) {
            return Mono.<String>never().doOnSubscribe(s -> entered.countDown()).doOnCancel(() -> cancelled = true);
        }

        @DistributedLock(name = "flux", onLeaseLost = "interrupt")
        public Flux<Long> flux(CountDownLatch entered) {
            return Flux.interval(Duration.ofMillis(20)).doOnNext(n -> entered.countDown())
                    .doOnCancel(() -> fluxCancelled = true);
        }

        @DistributedLock(name = "future", onLeaseLost = "interrupt")
        public CompletableFuture<String> future(CountDownLatch entered) {
            CompletableFuture<String> own = new CompletableFuture<>();
            ownFuture.set(own);
            entered.countDown();
            return own;
        }
    }
}
