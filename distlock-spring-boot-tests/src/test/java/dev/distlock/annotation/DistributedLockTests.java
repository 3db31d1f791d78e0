package dev.distlock.annotation;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.distlock.LockContext;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.annotation.LockedBeans.Async;
import dev.distlock.annotation.LockedBeans.Exports;
import dev.distlock.annotation.LockedBeans.Greeter;
import dev.distlock.annotation.LockedBeans.KeyForms;
import dev.distlock.annotation.LockedBeans.NightlyJob;
import dev.distlock.annotation.LockedBeans.Outer;
import dev.distlock.annotation.LockedBeans.Reactive;
import dev.distlock.annotation.LockedBeans.Skipper;
import dev.distlock.annotation.LockedBeans.Stock;
import dev.distlock.autoconfigure.DistlockAnnotationAutoConfiguration;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.redis.autoconfigure.DistlockRedisAutoConfiguration;
import dev.distlock.core.LockConfig;
import dev.distlock.embedded.LoopbackPorts;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.test.InMemoryLockService;
import org.junit.jupiter.api.Test;
import reactor.core.Disposable;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.aop.support.AopUtils;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.convert.DurationStyle;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static dev.distlock.test.DistlockAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link DistributedLock} through the auto-configuration, as applications use it, on the in-memory lock service:
 * what is tested here is the annotation (names, keys, waiting, skipping, reentrancy, asynchronous and reactive
 * methods, proxies), not Redis. Several applications share one {@link InMemoryLockStore}, as they share a Redis.
 * The Redis store passes the same contract as the in-memory one, and {@code DistlockTestIntegrationTests} locks
 * through the annotation in a real Redis.
 */
class DistributedLockTests {

    /** An application's own lock service, with the production defaults (a 3 s wait). */
    private static InMemoryLockService lockService(InMemoryLockStore store, LockListener... listeners) {
        return new InMemoryLockService(store, LockConfig.defaults(), listeners);
    }

    private ApplicationContextRunner runner() {
        return runner(() -> lockService(new InMemoryLockStore()));
    }

    /** An application whose lock service shares the store with the other applications made with it. */
    private ApplicationContextRunner runner(InMemoryLockStore shared) {
        return runner(() -> lockService(shared));
    }

    private ApplicationContextRunner runner(Supplier<InMemoryLockService> lockService) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DistlockAutoConfiguration.class,
                        DistlockAnnotationAutoConfiguration.class))
                .withPropertyValues("test.lock-group=grp")
                .withBean(InMemoryLockService.class, lockService)
                .withUserConfiguration(LockedBeans.Config.class);
    }

    /**
     * An application with the Redis starter's auto-configuration, pointed at a port where no Redis listens.
     */
    private ApplicationContextRunner redisApplication() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
                        DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class,
                        DistlockAnnotationAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + LoopbackPorts.free())
                .withUserConfiguration(LockedBeans.Config.class);
    }

    private static InMemoryLockService locks(AssertableApplicationContext context) {
        return context.getBean(InMemoryLockService.class);
    }

    /** Whether another call chain (this thread, which holds nothing) could take the lock right now. */
    private static boolean isFree(LockService service, String name) {
        Optional<LockHandle> handle = service.tryLock(name, LockOptions.defaults().withWaitTime(Duration.ZERO));
        handle.ifPresent(LockHandle::unlock);
        return handle.isPresent();
    }

    private static LockHandle holdOnOtherThread(LockService service, String name) {
        return CompletableFuture.supplyAsync(() -> service.lock(name)).join();
    }

    @Test
    void holdAtLeastKeepsAScheduledJobFromRunningAgainOnAnyInstanceUntilTheTimeIsUp() {
        InMemoryLockStore shared = new InMemoryLockStore();
        runner(shared).run(first -> runner(shared).run(second -> {
            NightlyJob one = first.getBean(NightlyJob.class);
            NightlyJob two = second.getBean(NightlyJob.class);
            long started = System.nanoTime();
            one.run();
            assertThat(one.runs()).isEqualTo(1);
            assertThat(isFree(locks(first), "nightly")).as("the method returned; the lock is held on").isFalse();
            two.run();
            one.run();
            assertThat(two.runs() + one.runs()).as("skipped on both instances meanwhile").isEqualTo(1);
            await().atMost(Duration.ofSeconds(10)).until(() -> isFree(locks(second), "nightly"));
            assertThat(Duration.ofNanos(System.nanoTime() - started))
                    .isGreaterThanOrEqualTo(DurationStyle.detectAndParse(NightlyJob.HOLD_AT_LEAST));
            two.run();
            assertThat(two.runs()).as("runs again once the time is up").isEqualTo(1);
        }));
    }

    @Test
    void permitsLetThatManyCallsInAtOnceAcrossTwoApplications() throws Exception {
        InMemoryLockStore shared = new InMemoryLockStore();
        runner(shared).run(first -> runner(shared).run(second -> {
            Exports one = first.getBean(Exports.class);
            Exports two = second.getBean(Exports.class);
            Exports.active.set(0);
            Exports.maxActive.set(0);
            ExecutorService pool = Executors.newFixedThreadPool(6);
            List<Long> tokens = new ArrayList<>();
            try {
                List<Future<Long>> calls = new ArrayList<>();
                for (int i = 0; i < 30; i++) {
                    Exports exports = (i % 2 == 0) ? one : two;
                    calls.add(pool.submit(exports::export));
                }
                for (Future<Long> call : calls) {
                    tokens.add(call.get(30, TimeUnit.SECONDS));
                }
            }
            finally {
                pool.shutdownNow();
            }
            assertThat(Exports.maxActive.get()).as("calls inside at once, on two permits").isEqualTo(2);
            assertThat(tokens).as("a token per call").doesNotHaveDuplicates().hasSize(30);
            assertThat(locks(first)).hasNoLockHeld();
            assertThat(locks(second)).hasNoLockHeld();
        }));
    }

    @Test
    void mutualExclusionAcrossTwoApplications() throws Exception {
        InMemoryLockStore shared = new InMemoryLockStore();
        runner(shared).run(first -> runner(shared).run(second -> {
            Stock one = first.getBean(Stock.class);
            Stock two = second.getBean(Stock.class);
            Stock.remaining = 60;
            Stock.maxActive.set(0);
            ExecutorService pool = Executors.newFixedThreadPool(8);
            try {
                List<Future<?>> calls = new ArrayList<>();
                for (int i = 0; i < 60; i++) {
                    Stock stock = (i % 2 == 0) ? one : two;
                    calls.add(pool.submit(() -> {
                        stock.deduct(1L);
                        return null;
                    }));
                }
                for (Future<?> call : calls) {
                    call.get(30, TimeUnit.SECONDS);
                }
            }
            finally {
                pool.shutdownNow();
            }
            assertThat(Stock.maxActive.get()).isEqualTo(1);
            assertThat(Stock.remaining).isZero();
            // Both applications took the lock, each call once.
            assertThat(locks(first)).hasBeenAcquired("stock:1", 30).hasNoLockHeld();
            assertThat(locks(second)).hasBeenAcquired("stock:1", 30).hasNoLockHeld();
        }));
    }

    @Test
    void keyIsPartOfTheLockAcrossApplications() throws Exception {
        InMemoryLockStore shared = new InMemoryLockStore();
        runner(shared).run(first -> runner(shared).run(second -> {
            CountDownLatch entered = new CountDownLatch(1);
            CountDownLatch release = new CountDownLatch(1);
            CompletableFuture<String> holder = CompletableFuture.supplyAsync(() -> {
                try {
                    return first.getBean(Stock.class).holdUntil(1L, entered, release);
                }
                catch (InterruptedException ex) {
                    throw new IllegalStateException(ex);
                }
            });
            assertThat(entered.await(10, TimeUnit.SECONDS)).isTrue();
            Stock other = second.getBean(Stock.class);
            assertThat(other.tryDeduct(2L)).isEqualTo("stock:2");
            assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> other.tryDeduct(1L))
                    .withMessageContaining("stock:1").withMessageContaining("Stock.tryDeduct");
            release.countDown();
            assertThat(holder.get(10, TimeUnit.SECONDS)).isEqualTo("stock:1");
            assertThat(other.tryDeduct(1L)).isEqualTo("stock:1");
            assertThat(locks(second)).hasBeenAcquired("stock:2", 1).hasBeenAcquired("stock:1", 1);
        }));
    }

    @Test
    void everyKeyForm() {
        runner().run(context -> {
            KeyForms forms = context.getBean(KeyForms.class);
            InMemoryLockService locks = locks(context);
            assertThat(locks).ranUnderLock("stock:7", () -> assertThat(forms.byName(7)).isEqualTo("stock:7"))
                    .ranUnderLock("order:bob-3", () -> assertThat(forms.byIndex("bob", 3)).isEqualTo("order:bob-3"))
                    .ranUnderLock("root:byRoot/x/KeyForms/byRoot/true",
                            () -> assertThat(forms.byRoot("x")).isEqualTo("root:byRoot/x/KeyForms/byRoot/true"))
                    .ranUnderLock("seq:42", () -> assertThat(forms.byBean()).isEqualTo("seq:42"))
                    .ranUnderLock("KeyForms.defaultName",
                            () -> assertThat(forms.defaultName()).isEqualTo("KeyForms.defaultName"))
                    .ranUnderLock("grp", () -> assertThat(forms.placeholderName()).isEqualTo("grp"))
                    .ranUnderLock("stock:5", () -> assertThat(forms.composed(5)).isEqualTo("stock:5"));
            assertThat(LockContext.current()).isEmpty();
        });
    }

    @Test
    void aKeyThatIsACollectionLocksEveryElementInOneOrder() {
        runner().run(context -> {
            KeyForms forms = context.getBean(KeyForms.class);
            assertThat(forms.transfer(7, 3)).containsExactly("account:3", "account:7");
            assertThat(forms.transfer(3, 7)).containsExactly("account:3", "account:7");
            assertThat(forms.skus(new long[] { 20, 10, 20 })).containsExactly("sku:10", "sku:20");
            assertThat(locks(context).grants()).extracting(InMemoryLockService.Grant::name).containsExactly(
                    "account:3", "account:7", "account:3", "account:7", "sku:10", "sku:20");
            assertThat(LockContext.all()).isEmpty();
            assertThat(isFree(locks(context), "account:3") && isFree(locks(context), "account:7")).isTrue();
        });
    }

    @Test
    void anEmptyCollectionKeyOrANullElementFailsWithoutCallingTheMethod() {
        runner().run(context -> {
            KeyForms forms = context.getBean(KeyForms.class);
            assertThatExceptionOfType(LockException.class).isThrownBy(() -> forms.batch(List.of()))
                    .withMessageContaining(KeyForms.class.getName() + ".batch").withMessageContaining("'#ids'")
                    .withMessageContaining("evaluated to an empty list");
            assertThatExceptionOfType(LockException.class).isThrownBy(() -> forms.batch(Arrays.asList("a", null)))
                    .withMessageContaining("evaluated to a collection with a null element");
            assertThatExceptionOfType(LockException.class).isThrownBy(() -> forms.batch(Set.of(" ")))
                    .withMessageContaining("evaluated to a collection with a blank element");
            assertThat(forms.nullableCalls()).isZero();
            assertThat(locks(context).grants()).isEmpty();
        });
    }

    @Test
    void nullOrBlankKeyFailsWithoutCallingTheMethod() {
        runner().run(context -> {
            KeyForms forms = context.getBean(KeyForms.class);
            assertThatExceptionOfType(LockException.class).isThrownBy(() -> forms.nullable(null))
                    .withMessageContaining(KeyForms.class.getName() + ".nullable")
                    .withMessageContaining("'#value'").withMessageContaining("evaluated to null");
            assertThatExceptionOfType(LockException.class).isThrownBy(() -> forms.nullable("  "))
                    .withMessageContaining("evaluated to a blank string");
            assertThat(forms.nullableCalls()).isZero();
            assertThat(locks(context).grants()).as("no lock taken for a null or blank key").isEmpty();
            assertThat(forms.nullable("ok")).isEqualTo("nullable:ok");
        });
    }

    @Test
    void skipReturnsEmptyValuesAndThrowThrows() {
        runner().run(context -> {
            LockService service = context.getBean(LockService.class);
            Skipper skipper = context.getBean(Skipper.class);
            LockHandle busy = holdOnOtherThread(service, "busy");
            try {
                assertThat(skipper.string()).isNull();
                assertThat(skipper.optional()).isEmpty();
                assertThat(skipper.list()).isEmpty();
                assertThat(skipper.primitive()).isZero();
                assertThat(skipper.flag()).isFalse();
                assertThat(skipper.future()).isCompletedWithValue(null);
                assertThat(skipper.mono().blockOptional()).isEmpty();
                skipper.nothing();
                assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(skipper::thrower)
                        .withMessageContaining("'busy'").withMessageContaining("Skipper.thrower");
                assertThat(skipper.calls()).isZero();
                assertThat(locks(context)).as("only the holder's").hasBeenAcquired("busy", 1);
            }
            finally {
                busy.unlock();
            }
            assertThat(skipper.string()).isEqualTo("ran");
            assertThat(skipper.calls()).isOne();
            assertThat(locks(context)).hasBeenAcquired("busy", 2).hasNoLockHeld();
        });
    }

    @Test
    void nestedCallsOnTheSameLockAreReentrant() {
        runner().run(context -> {
            assertThat(context.getBean(Outer.class).run()).isEqualTo("re|re");
            // The nested method re-entered the outer one's lock instead of taking it again.
            assertThat(locks(context)).hasBeenAcquired("re", 1).hasNoLockHeld();
            assertThat(isFree(context.getBean(LockService.class), "re")).isTrue();
        });
    }

    @Test
    void completableFutureHoldsTheLockUntilItCompletes() {
        runner().run(context -> {
            LockService service = context.getBean(LockService.class);
            Async async = context.getBean(Async.class);
            AtomicInteger seenInside = new AtomicInteger();
            CompletableFuture<String> gate = new CompletableFuture<>();
            CompletableFuture<String> result = async.later(gate, seenInside);
            assertThat(seenInside).hasValue(1);
            // Detached: the calling thread does not see the lock as its own, so it cannot re-enter it.
            assertThat(LockContext.current()).isEmpty();
            assertThat(isFree(service, "async")).isFalse();
            gate.complete("done");
            assertThat(result.join()).isEqualTo("done!");
            assertThat(isFree(service, "async")).isTrue();

            CompletableFuture<String> failing = new CompletableFuture<>();
            CompletableFuture<String> failed = async.later(failing, seenInside);
            failing.completeExceptionally(new IllegalStateException("boom"));
            assertThatExceptionOfType(CompletionException.class).isThrownBy(failed::join)
                    .withRootCauseInstanceOf(IllegalStateException.class);
            assertThat(isFree(service, "async")).isTrue();

            // Cancelling the returned future (WebFlux does on a client disconnect) does not stop the method's own
            // work, so the lock stays held until that work completes.
            CompletableFuture<String> work = new CompletableFuture<>();
            CompletableFuture<String> cancelled = async.later(work, seenInside);
            assertThat(isFree(service, "async")).isFalse();
            assertThat(cancelled.cancel(true)).isTrue();
            assertThat(cancelled).isCancelled();
            await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2))
                    .until(() -> !isFree(service, "async"));
            assertThat(work).as("the method's own work is not cut short").isNotDone();
            work.complete("late");
            await().atMost(Duration.ofSeconds(5)).until(() -> isFree(service, "async"));

            CompletableFuture<String> stageGate = new CompletableFuture<>();
            CompletableFuture<String> stage = async.stage(stageGate).toCompletableFuture();
            assertThat(isFree(service, "async")).isFalse();
            stageGate.complete("s");
            assertThat(stage.join()).isEqualTo("s?");
            assertThat(isFree(service, "async")).isTrue();
        });
    }

    @Test
    void completableFutureIsReleasedOnADistlockThreadNotTheOneThatCompletesIt() {
        ReleaseThreads releaseThreads = new ReleaseThreads();
        runner(() -> lockService(new InMemoryLockStore(), releaseThreads)).run(context -> {
            Async async = context.getBean(Async.class);
            CompletableFuture<String> gate = new CompletableFuture<>();
            CompletableFuture<String> result = async.later(gate, new AtomicInteger());
            Thread completer = new Thread(() -> gate.complete("x"), "client-event-loop");
            completer.start();
            completer.join();
            assertThat(result.join()).isEqualTo("x!");
            assertThat(releaseThreads.names).singleElement()
                    .satisfies(name -> assertThat(name).startsWith("distlock-release"));
        });
    }

    @Test
    void monoAndFluxHoldTheLockFromSubscriptionUntilTheyTerminate() {
        runner().run(context -> {
            LockService service = context.getBean(LockService.class);
            Async async = context.getBean(Async.class);
            Sinks.One<String> sink = Sinks.one();
            Mono<String> assembled = async.mono(sink);
            assertThat(isFree(service, "async")).as("not locked before subscription").isTrue();
            CompletableFuture<String> mono = assembled.toFuture();
            assertThat(LockContext.current()).isEmpty();
            await().atMost(Duration.ofSeconds(5)).until(() -> !isFree(service, "async"));
            sink.tryEmitValue("m");
            assertThat(mono.join()).isEqualTo("m");
            assertThat(isFree(service, "async")).isTrue();

            Disposable flux = async.flux().subscribe();
            await().atMost(Duration.ofSeconds(5)).until(() -> !isFree(service, "async"));
            flux.dispose();
            await().atMost(Duration.ofSeconds(5)).until(() -> isFree(service, "async"));
        });
    }

    @Test
    void aMonoThatIsNeverSubscribedTakesNoLock() {
        runner().run(context -> {
            Reactive reactive = context.getBean(Reactive.class);
            reactive.step("never", "v");
            assertThat(isFree(context.getBean(LockService.class), "rx:never")).isTrue();
            assertThat(reactive.invocations()).isZero();
        });
    }

    @Test
    void everySubscriptionHoldsItsOwnLockSoRetryRunsUnderTheLockAgain() {
        runner().run(context -> {
            Reactive reactive = context.getBean(Reactive.class);
            AtomicInteger attempts = new AtomicInteger();
            assertThat(reactive.failingOnce("retry", attempts).retry(1).block(Duration.ofSeconds(10)))
                    .isEqualTo("second attempt");
            assertThat(reactive.invocations()).as("the method ran once per subscription").isEqualTo(2);
            assertThat(isFree(context.getBean(LockService.class), "rx:retry")).isTrue();
        });
    }

    @Test
    void sequentialPublishersOfTheSameLockDoNotDeadlock() {
        runner().run(context -> {
            Reactive reactive = context.getBean(Reactive.class);
            assertThat(reactive.step("seq", "a").then(reactive.step("seq", "b")).block(Duration.ofSeconds(10)))
                    .isEqualTo("b");
            assertThat(reactive.locksSeen()).containsExactly("rx:seq", "rx:seq");
        });
    }

    @Test
    void aNestedPublisherReentersTheLockOfItsPipeline() {
        runner().run(context -> {
            Reactive reactive = context.getBean(Reactive.class);
            assertThat(context.getBean(LockedBeans.ReactiveOuter.class).outer("nested").block(Duration.ofSeconds(10)))
                    .isEqualTo("inner");
            assertThat(reactive.locksSeen()).containsExactly("rx:nested");
            assertThat(isFree(context.getBean(LockService.class), "rx:nested")).isTrue();
        });
    }

    @Test
    void aSkippedFluxIsEmpty() {
        runner().run(context -> {
            LockHandle busy = holdOnOtherThread(context.getBean(LockService.class), "rx:busy");
            try {
                assertThat(context.getBean(Reactive.class).skipping("busy").collectList().block(Duration.ofSeconds(5)))
                        .isEmpty();
            }
            finally {
                busy.unlock();
            }
        });
    }

    /** Records the threads on which locks are released. */
    static class ReleaseThreads implements dev.distlock.listener.LockListener {

        final List<String> names = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void released(LockHandle handle, dev.distlock.spi.ReleaseResult result) {
            names.add(Thread.currentThread().getName());
        }
    }

    @Test
    void cglibAndJdkProxies() {
        runner().run(context -> {
            assertThat(AopUtils.isCglibProxy(context.getBean(KeyForms.class))).isTrue();
            Greeter greeter = context.getBean(Greeter.class);
            assertThat(AopUtils.isCglibProxy(greeter)).isTrue();
            assertThat(greeter.greet("ann")).isEqualTo("greet:ann");
        });
        runner().withPropertyValues("spring.aop.proxy-target-class=false").run(context -> {
            Greeter greeter = context.getBean(Greeter.class);
            assertThat(AopUtils.isJdkDynamicProxy(greeter)).isTrue();
            assertThat(greeter.greet("bob")).isEqualTo("greet:bob");
        });
    }

    @Test
    void disabledRunsMethodsWithoutLockingOrRedis() {
        redisApplication().withPropertyValues("distlock.enabled=false").run(context -> {
                    assertThat(context).doesNotHaveBean(LockService.class)
                            .doesNotHaveBean(DistributedLockAdvisor.class);
                    KeyForms forms = context.getBean(KeyForms.class);
                    assertThat(AopUtils.isAopProxy(forms)).isFalse();
                    assertThat(forms.byName(7)).isNull();
                    assertThat(forms.nullable(null)).isNull();
                });
    }

    @Test
    void anApplicationsInMemoryLockServiceReplacesTheRedisOneSoTestsNeedNoRedis() {
        redisApplication().withBean(InMemoryLockService.class, InMemoryLockService::new).run(context -> {
            assertThat(context).hasSingleBean(LockService.class);
            InMemoryLockService locks = locks(context);
            assertThat(context.getBean(LockService.class)).isSameAs(locks);
            KeyForms forms = context.getBean(KeyForms.class);
            assertThat(locks).ranUnderLock("stock:7", () -> assertThat(forms.byName(7)).isEqualTo("stock:7"));
        });
    }
}
