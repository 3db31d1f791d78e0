package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link LockHandle#remaining()}: the lease's deadline less the drift margin while held, moving on with the
 * watchdog's renewals, and zero once the handle no longer holds the lock.
 */
class RemainingTimeTests {

    private final InMemoryLockStore memory = new InMemoryLockStore();

    private final List<StoreLockService> services = new ArrayList<>();

    @AfterEach
    void close() {
        services.forEach(StoreLockService::close);
    }

    private StoreLockService node(Duration watchdogLease) {
        StoreLockService service = new StoreLockService(memory.connect(),
                LockConfig.defaults().withLeaseTime(watchdogLease), LockListener.NONE);
        services.add(service);
        service.start();
        return service;
    }

    @Test
    void aFixedLeaseCountsDownFromTheLeaseLessTheDriftMarginAndEndsAtZero() {
        Duration lease = Duration.ofMillis(400);
        long before = System.nanoTime();
        LockHandle handle = node(Duration.ofSeconds(30)).lock("job", LockOptions.defaults().withLeaseTime(lease));
        Duration first = handle.remaining();
        long after = System.nanoTime();
        // The deadline is the sending of the request plus the lease less the margin: sent after 'before'.
        assertThat(first).isLessThanOrEqualTo(Duration.ofNanos(ClockDrift.validNanos(lease)))
                .isGreaterThanOrEqualTo(Duration.ofNanos(ClockDrift.validNanos(lease) - (after - before)));
        assertThat(handle.remaining()).isLessThanOrEqualTo(first);

        await("the fixed lease runs out").atMost(Duration.ofSeconds(5)).until(() -> !handle.isHeld());
        assertThat(handle.remaining()).isZero();
        handle.unlock();
    }

    @Test
    void aWatchdogLeaseMovesOnWithItsRenewals() {
        Duration lease = Duration.ofMillis(600);
        long acquiredAt = System.nanoTime();
        LockHandle handle = node(lease).lock("report");
        assertThat(handle.remaining()).isPositive().isLessThanOrEqualTo(Duration.ofNanos(ClockDrift.validNanos(lease)));

        // Past the first lease's deadline, the watchdog's renewals keep a deadline ahead.
        await().atMost(Duration.ofSeconds(5)).until(() -> System.nanoTime() - acquiredAt > lease.toNanos() * 2);
        assertThat(handle.isHeld()).isTrue();
        assertThat(handle.remaining()).isPositive().isLessThanOrEqualTo(Duration.ofNanos(ClockDrift.validNanos(lease)));

        handle.unlock();
        assertThat(handle.remaining()).as("released").isZero();
    }

    @Test
    void aReentrantHoldTellsItsLocksTimeAndZeroOnceItsScopeEnded() {
        StoreLockService service = node(Duration.ofSeconds(30));
        AtomicReference<LockHandle> inner = new AtomicReference<>();
        service.runWithLock("account", () -> service.runWithLock("account", () -> {
            LockHandle reentrant = LockContext.current().orElseThrow();
            inner.set(reentrant);
            assertThat(reentrant.remaining()).isPositive()
                    .isLessThanOrEqualTo(Duration.ofNanos(ClockDrift.validNanos(Duration.ofSeconds(30))));
        }));
        assertThat(inner.get().remaining()).isZero();
    }
}
