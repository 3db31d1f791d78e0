package dev.distlock.core;

import dev.distlock.spi.Waiting;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.OptionalLong;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LockHandle;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.HandOverEvents;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The engine's side of a hand-over ({@link StoreEvents#handedOver}), on the in-memory store: a waiter starts on a
 * hand-over only when it was issued after the waiter's last refusal, and one the store then does not confirm is a
 * lost lease. The store's refusals here say they were made at a clock the test chooses, and the test tells the
 * hand-overs itself, so that a stale one can be told at all (the Redis store's are tested in distlock-redis).
 */
class HandOverTests {

    /** The store clock (µs) every refusal of the waiter's store says it was made at. */
    private static final long REFUSED_AT = 1_000_000_000_000_000L;

    private static final long WINDOW_MILLIS = 100;

    private final InMemoryLockStore store = InMemoryLockStore.withClockTokens();

    private final AtomicReference<HandOverEvents> events = new AtomicReference<>();

    private final AtomicReference<String> waiterToken = new AtomicReference<>();

    private final AtomicInteger refusals = new AtomicInteger();

    private final ExecutorService pool = Executors.newSingleThreadExecutor();

    private StoreLockService holder;

    private StoreLockService waiter;

    @AfterEach
    void close() {
        pool.shutdownNow();
        waiter.close();
        holder.close();
    }

    /** When the waiter's last refusal came back ({@link System#nanoTime()}). */
    private volatile long refusedAtNanos;

    /**
     * @return the store's clock now, as the waiter's store would tell it: its refusal's clock plus the time since
     *         (so that the hand-over starts now however slowly a loaded machine runs the test)
     */
    private long storeClockNow() {
        return REFUSED_AT + (System.nanoTime() - refusedAtNanos) / 1000;
    }

    /** Whether the waiter's confirmations are never answered. */
    private volatile boolean confirmationsHang;

    private final AtomicInteger lost = new AtomicInteger();

    private void start() {
        start(LockConfig.defaults().withWaitTime(Duration.ofSeconds(30)));
    }

    private void start(LockConfig config) {
        holder = new StoreLockService(store.connect(), config, LockListener.NONE);
        holder.start();
        waiter = new StoreLockService(new ForwardingLockStore(store.connect()) {
            @Override
            public void startHandOvers(HandOverEvents told) {
                events.set(told);
                super.startHandOvers(told);
            }

            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
                if (confirmationsHang && refusals.get() > 0 && waiting instanceof Waiting.LastTry) { // a confirmation
                    return new CompletableFuture<>();
                }
                return super.attempt(request, waiting).thenApply(attempt -> {
                    if ((attempt instanceof Attempt.Granted)) {
                        return attempt;
                    }
                    waiterToken.set(request.ownerToken());
                    refusedAtNanos = System.nanoTime();
                    refusals.incrementAndGet();
                    return new Attempt.Busy(((Attempt.Busy) attempt).retryAfter(), OptionalLong.of(REFUSED_AT));
                });
            }
        }, config, new LockListener() {
            @Override
            public void leaseLost(LockHandle handle) {
                lost.incrementAndGet();
            }
        });
        waiter.start();
    }

    /** The waiter asks for the lock the holder holds, on a thread of its own, and is refused once. */
    private Future<LockHandle> waiterRefusedOnce() {
        Future<LockHandle> waiting = pool.submit(() -> waiter.lock("item"));
        await().pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(5)).until(() -> refusals.get() == 1);
        return waiting;
    }

    @Test
    void aHandOverIssuedBeforeTheWaitersLastRefusalIsNotTaken() throws Exception {
        start();
        LockHandle held = holder.lock("item");
        Future<LockHandle> waiting = waiterRefusedOnce();

        // Issued a whole window before the refusal: it ended before the waiter was refused.
        events.get().handedOver("item", waiterToken.get(), REFUSED_AT - WINDOW_MILLIS * 1000,
                REFUSED_AT - WINDOW_MILLIS * 1000, Duration.ofMillis(WINDOW_MILLIS));
        await("asked the store instead").pollInterval(Duration.ofMillis(1)).atMost(Duration.ofSeconds(5))
                .until(() -> refusals.get() == 2);
        assertThat(waiting).isNotDone();

        held.unlock();
        try (LockHandle handle = waiting.get(5, TimeUnit.SECONDS)) {
            assertThat(handle.fencingToken()).isGreaterThan(held.fencingToken());
        }
    }

    /**
     * Review 4, F2: with the default lease the watchdog runs every 10 s, so only the deadline guard, armed for the
     * hand-over's own deadline when it is taken, reports the loss on time: before the next candidate can be granted.
     */
    @Test
    void aHandOverWhoseConfirmationNeverComesIsLostAtTheHandOversEnd() throws Exception {
        start();
        confirmationsHang = true;
        LockHandle held = holder.lock("item");
        Future<LockHandle> waiting = waiterRefusedOnce();

        long handedAt = System.nanoTime();
        events.get().handedOver("item", waiterToken.get(), storeClockNow(), storeClockNow(), Duration.ofMillis(WINDOW_MILLIS));
        LockHandle handed = waiting.get(5, TimeUnit.SECONDS);
        await("counted on no longer than the hand-over").atMost(Duration.ofSeconds(5)).until(() -> !handed.isHeld());
        await("reported lost by the deadline guard").atMost(Duration.ofSeconds(5)).until(() -> lost.get() == 1);
        assertThat(Duration.ofNanos(System.nanoTime() - handedAt)).as("reported at the hand-over's end")
                .isLessThan(Duration.ofMillis(WINDOW_MILLIS + 400));
        handed.unlock();
        assertThat(lost.get()).as("reported once").isEqualTo(1);
        held.unlock();
    }

    @Test
    void aWaiterStartsOnAFreshHandOverAndLosesItWhenTheStoreDoesNotConfirmIt() throws Exception {
        start();
        LockHandle held = holder.lock("item");
        Future<LockHandle> waiting = waiterRefusedOnce();

        // Issued after the refusal, but the holder still holds the lock: the confirmation is refused.
        events.get().handedOver("item", waiterToken.get(), storeClockNow(), storeClockNow(), Duration.ofMillis(WINDOW_MILLIS));
        LockHandle handed = waiting.get(5, TimeUnit.SECONDS);
        assertThat(handed.fencingToken()).as("the hand-over's token").isGreaterThan(REFUSED_AT);
        await("lost once the store refused the confirmation").atMost(Duration.ofSeconds(5))
                .until(() -> !handed.isHeld());
        assertThat(held.isHeld()).isTrue();
        assertThat(store.isLocked("item")).isTrue();
        held.unlock();
        assertThat(store.isLocked("item")).isFalse();
    }

    /**
     * Review 4, F6: after a failover to a master whose clock is behind, the hand-over's token (above the previous
     * holder's, issued by the old master) is ahead of the clock. The waiter counts on the hand-over from the store's
     * clock sent beside the token, so it stops counting at the store's window; from the token it counted 10 s on.
     */
    @Test
    void aHandOverIsCountedFromTheStoresClockNotFromATokenAheadOfIt() throws Exception {
        start();
        confirmationsHang = true;
        LockHandle held = holder.lock("item");
        Future<LockHandle> waiting = waiterRefusedOnce();

        long tokenAheadOfTheClock = REFUSED_AT + 10_000_000; // 10 s
        long handedAt = System.nanoTime();
        events.get().handedOver("item", waiterToken.get(), tokenAheadOfTheClock, storeClockNow(), Duration.ofMillis(WINDOW_MILLIS));
        LockHandle handed = waiting.get(5, TimeUnit.SECONDS);
        assertThat(handed.fencingToken()).isEqualTo(tokenAheadOfTheClock);
        await("counted on no longer than the store's window").atMost(Duration.ofSeconds(5))
                .until(() -> !handed.isHeld());
        assertThat(Duration.ofNanos(System.nanoTime() - handedAt)).isLessThan(Duration.ofMillis(WINDOW_MILLIS + 400));
        handed.unlock();
        held.unlock();
    }
}
