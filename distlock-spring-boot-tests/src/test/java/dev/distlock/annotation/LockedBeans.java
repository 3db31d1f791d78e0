package dev.distlock.annotation;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;
import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import org.jspecify.annotations.Nullable;
import reactor.core.publisher.Flux;
import reactor.core.publisher.Mono;
import reactor.core.publisher.Sinks;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.annotation.AliasFor;

/**
 * Annotated beans used by the annotation tests. Each method reports the lock it runs under.
 */
final class LockedBeans {

    private LockedBeans() {
    }

    static String currentLock() {
        return LockContext.current().filter(LockHandle::isHeld).map(LockHandle::name).orElse(null);
    }

    @Configuration(proxyBeanMethods = false)
    static class Config {

        @Bean
        KeyForms keyForms() {
            return new KeyForms();
        }

        @Bean
        OrderNumbers orderNumbers() {
            return new OrderNumbers();
        }

        @Bean
        Stock stock() {
            return new Stock();
        }

        @Bean
        Skipper skipper() {
            return new Skipper();
        }

        @Bean
        NightlyJob nightlyJob() {
            return new NightlyJob();
        }

        @Bean
        Exports exports() {
            return new Exports();
        }

        @Bean
        Inner inner() {
            return new Inner();
        }

        @Bean
        Outer outer(Inner inner) {
            return new Outer(inner);
        }

        @Bean
        Async async() {
            return new Async();
        }

        @Bean
        GreeterImpl greeter() {
            return new GreeterImpl();
        }

        @Bean
        Reactive reactive() {
            return new Reactive();
        }

        @Bean
        ReactiveOuter reactiveOuter(Reactive reactive) {
            return new ReactiveOuter(reactive);
        }
    }

    @Target(ElementType.METHOD)
    @Retention(RetentionPolicy.RUNTIME)
    @DistributedLock(name = "stock", waitTime = "1s")
    @interface StockLock {

        @AliasFor(annotation = DistributedLock.class, attribute = "key")
        String value();
    }

    static class OrderNumbers {

        public long current() {
            return 42;
        }
    }

    static class KeyForms {

        private final AtomicInteger nullableCalls = new AtomicInteger();

        // Read through a method: a field read on a CGLIB proxy would see the proxy's own, unset field.
        public int nullableCalls() {
            return nullableCalls.get();
        }

        @DistributedLock(name = "stock", key = "#productId")
        public String byName(long productId) {
            return currentLock();
        }

        @DistributedLock(name = "order", key = "#p0 + '-' + #a1")
        public String byIndex(String user, int n) {
            return currentLock();
        }

        @DistributedLock(name = "root", key = "#root.methodName + '/' + #root.args[0] + '/' "
                + "+ #root.targetClass.simpleName + '/' + #root.method.name + '/' + (#root.target != null)")
        public String byRoot(String x) {
            return currentLock();
        }

        @DistributedLock(name = "seq", key = "@orderNumbers.current()")
        public String byBean() {
            return currentLock();
        }

        @DistributedLock
        public String defaultName() {
            return currentLock();
        }

        @DistributedLock(name = "${test.lock-group:fallback}")
        public String placeholderName() {
            return currentLock();
        }

        @StockLock("#productId")
        public String composed(long productId) {
            return currentLock();
        }

        @DistributedLock(name = "nullable", key = "#value")
        public String nullable(String value) {
            nullableCalls.incrementAndGet();
            return currentLock();
        }

        /** A transfer: both accounts locked together, whichever way the money goes. */
        @DistributedLock(name = "account", key = "{#from, #to}")
        public List<String> transfer(long from, long to) {
            return LockContext.all().stream().map(LockHandle::name).toList();
        }

        @DistributedLock(name = "batch", key = "#ids")
        public List<String> batch(@Nullable Collection<String> ids) {
            nullableCalls.incrementAndGet();
            return LockContext.all().stream().map(LockHandle::name).toList();
        }

        @DistributedLock(name = "sku", key = "#skus")
        public List<String> skus(long[] skus) {
            return LockContext.all().stream().map(LockHandle::name).toList();
        }
    }

    static class Stock {

        static final AtomicInteger active = new AtomicInteger();

        static final AtomicInteger maxActive = new AtomicInteger();

        // Deliberately unsynchronised read-modify-write: only the lock keeps it exact.
        static volatile int remaining;

        @DistributedLock(name = "stock", key = "#productId", waitTime = "20s")
        public void deduct(long productId) throws InterruptedException {
            maxActive.accumulateAndGet(active.incrementAndGet(), Math::max);
            int seen = remaining;
            Thread.sleep(3); // holding the lock while working is the behaviour under test
            remaining = seen - 1;
            active.decrementAndGet();
        }

        @DistributedLock(name = "stock", key = "#productId", waitTime = "0")
        public String tryDeduct(long productId) {
            return currentLock();
        }

        @DistributedLock(name = "stock", key = "#productId", waitTime = "10s")
        public String holdUntil(long productId, CountDownLatch entered, CountDownLatch release)
                throws InterruptedException {
            entered.countDown();
            release.await(10, TimeUnit.SECONDS);
            return currentLock();
        }
    }

    /** Calls to a rate-limited API: at most two at once, across every instance. */
    static class Exports {

        static final AtomicInteger active = new AtomicInteger();

        static final AtomicInteger maxActive = new AtomicInteger();

        @DistributedLock(name = "export", permits = 2, waitTime = "30s")
        public long export() throws InterruptedException {
            maxActive.accumulateAndGet(active.incrementAndGet(), Math::max);
            try {
                Thread.sleep(5); // the protected call: the holders overlap while it runs
                return LockContext.current().map(LockHandle::fencingToken).orElseThrow();
            }
            finally {
                active.decrementAndGet();
            }
        }
    }

    /** A scheduled job that runs on one instance, and not again on any instance for 1.5 s after it started. */
    static class NightlyJob {

        static final String HOLD_AT_LEAST = "1500ms";

        private final AtomicInteger runs = new AtomicInteger();

        int runs() {
            return runs.get();
        }

        @DistributedLock(name = "nightly", waitTime = "0", onTimeout = OnTimeout.SKIP, holdAtLeast = HOLD_AT_LEAST)
        public void run() {
            runs.incrementAndGet();
        }
    }

    static class Skipper {

        private final AtomicInteger calls = new AtomicInteger();

        public int calls() {
            return calls.get();
        }

        @DistributedLock(name = "busy", waitTime = "0", onTimeout = OnTimeout.SKIP)
        public String string() {
            calls.incrementAndGet();
            return "ran";
        }

        @DistributedLock(name = "busy", waitTime = "0", onTimeout = OnTimeout.SKIP)
        public Optional<String> optional() {
            calls.incrementAndGet();
            return Optional.of("ran");
        }

        @DistributedLock(name = "busy", waitTime = "0", onTimeout = OnTimeout.SKIP)
        public List<String> list() {
            calls.incrementAndGet();
            return List.of("ran");
        }

        @DistributedLock(name = "busy", waitTime = "0", onTimeout = OnTimeout.SKIP)
        public int primitive() {
            calls.incrementAndGet();
            return 1;
        }

        @DistributedLock(name = "busy", waitTime = "0", onTimeout = OnTimeout.SKIP)
        public boolean flag() {
            calls.incrementAndGet();
            return true;
        }

        @DistributedLock(name = "busy", waitTime = "0", onTimeout = OnTimeout.SKIP)
        public CompletableFuture<String> future() {
            calls.incrementAndGet();
            return CompletableFuture.completedFuture("ran");
        }

        @DistributedLock(name = "busy", waitTime = "0", onTimeout = OnTimeout.SKIP)
        public Mono<String> mono() {
            calls.incrementAndGet();
            return Mono.just("ran");
        }

        @DistributedLock(name = "busy", waitTime = "0", onTimeout = OnTimeout.SKIP)
        public void nothing() {
            calls.incrementAndGet();
        }

        @DistributedLock(name = "busy", waitTime = "0")
        public String thrower() {
            calls.incrementAndGet();
            return "ran";
        }
    }

    static class Inner {

        @DistributedLock(name = "re", waitTime = "0")
        public String run() {
            return currentLock();
        }
    }

    static class Outer {

        private final Inner inner;

        Outer(Inner inner) {
            this.inner = inner;
        }

        @DistributedLock(name = "re", waitTime = "0")
        public String run() {
            String innerLock = inner.run();
            // Still held after the nested release: the store is released by the outermost holder only.
            return innerLock + "|" + currentLock();
        }
    }

    static class Async {

        @DistributedLock(name = "async", waitTime = "5s")
        public CompletableFuture<String> later(CompletableFuture<String> gate, AtomicInteger seenInside) {
            if (currentLock() != null) {
                seenInside.incrementAndGet();
            }
            return gate.thenApply(value -> value + "!");
        }

        @DistributedLock(name = "async", waitTime = "5s")
        public CompletionStage<String> stage(CompletableFuture<String> gate) {
            return gate.thenApply(value -> value + "?");
        }

        @DistributedLock(name = "async", waitTime = "5s")
        public Mono<String> mono(Sinks.One<String> sink) {
            return sink.asMono();
        }

        @DistributedLock(name = "async", waitTime = "5s")
        public Flux<Long> flux() {
            return Flux.interval(Duration.ofMillis(10));
        }
    }

    /** Reactive methods locked per subscription. */
    static class Reactive {

        private final AtomicInteger invocations = new AtomicInteger();

        private final java.util.List<String> locksSeen = new java.util.concurrent.CopyOnWriteArrayList<>();

        // Accessors, not fields: callers hold the CGLIB proxy, whose own fields are never set.
        public int invocations() {
            return invocations.get();
        }

        public java.util.List<String> locksSeen() {
            return locksSeen;
        }

        @DistributedLock(name = "rx", key = "#key", waitTime = "5s")
        public Mono<String> step(String key, String value) {
            invocations.incrementAndGet();
            locksSeen.add(String.valueOf(currentLock()));
            return Mono.just(value);
        }

        @DistributedLock(name = "rx", key = "#key", waitTime = "5s")
        public Mono<String> failingOnce(String key, AtomicInteger attempts) {
            invocations.incrementAndGet();
            return attempts.getAndIncrement() == 0 ? Mono.error(new IllegalStateException("first attempt"))
                    : Mono.just("second attempt");
        }


        @DistributedLock(name = "rx", key = "#key", waitTime = "0", onTimeout = OnTimeout.SKIP)
        public Flux<String> skipping(String key) {
            return Flux.just("a", "b");
        }
    }

    /** Calls {@link Reactive} inside its own locked pipeline. */
    static class ReactiveOuter {

        private final Reactive reactive;

        ReactiveOuter(Reactive reactive) {
            this.reactive = reactive;
        }

        @DistributedLock(name = "rx", key = "#key", waitTime = "5s")
        public Mono<String> outer(String key) {
            // The nested subscription runs in this one's pipeline: it re-enters the lock instead of waiting.
            return Mono.just(key).flatMap(k -> reactive.step(k, "inner"));
        }
    }

    interface Greeter {

        @DistributedLock(name = "greet", key = "#who")
        String greet(String who);
    }

    static class GreeterImpl implements Greeter {

        @Override
        public String greet(String who) {
            return currentLock();
        }
    }
}
