package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.listener.AcquireEvent;
import dev.distlock.listener.AcquireResult;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Waits too long to count in nanoseconds ("forever" written as a huge duration): they wait, neither failing with an
 * arithmetic overflow nor overflowing into a deadline in the past, i.e. an immediate timeout.
 */
class WaitTimeEdgeTests {

    private final List<StoreLockService> services = new ArrayList<>();

    private final InMemoryLockStore store = new InMemoryLockStore();

    private StoreLockService node(LockListener... listeners) {
        StoreLockService service = new StoreLockService(store.connect(), LockConfig.defaults(),
                CompositeLockListener.of(List.of(listeners)));
        service.start();
        services.add(service);
        return service;
    }

    @AfterEach
    void close() {
        services.forEach(StoreLockService::close);
    }

    static List<Duration> hugeWaits() {
        return List.of(Duration.ofNanos(Long.MAX_VALUE), Duration.ofNanos(Long.MAX_VALUE - 1),
                Duration.ofSeconds(Long.MAX_VALUE / 1_000_000_000L + 1), Duration.ofSeconds(Long.MAX_VALUE),
                Duration.ofDays(365L * 1000));
    }

    @ParameterizedTest
    @MethodSource("hugeWaits")
    void aHugeWaitWaitsForTheHolderAndThenAcquires(Duration wait) throws Exception {
        Finished finished = new Finished();
        StoreLockService holder = node();
        StoreLockService waiter = node(finished);
        LockOptions options = LockOptions.defaults().withWaitTime(wait);

        Optional<LockHandle> free = waiter.tryLock("free", options);
        assertThat(free).as("acquired at once when free").isPresent();
        free.get().unlock();

        LockHandle held = holder.lock("busy");
        CompletableFuture<Optional<LockHandle>> waiting = CompletableFuture.supplyAsync(
                () -> waiter.tryLock("busy", options));
        await().during(Duration.ofMillis(300)).atMost(Duration.ofSeconds(2)).until(() -> !waiting.isDone());
        held.unlock();
        Optional<LockHandle> got = waiting.get(5, TimeUnit.SECONDS);
        assertThat(got).as("acquired once the holder released").isPresent();
        got.get().unlock();
        assertThat(finished.results).containsExactly(AcquireResult.ACQUIRED, AcquireResult.ACQUIRED);
    }

    /** Records how each acquisition ended: every started one must end (its observation is stopped). */
    static final class Finished implements LockListener {

        final List<AcquireResult> results = new java.util.concurrent.CopyOnWriteArrayList<>();

        @Override
        public void acquireFinished(AcquireEvent event) {
            results.add(event.result());
        }
    }
}
