package dev.distlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.distlock.listener.LockListener;
import dev.distlock.spi.RenewalResult;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One scheduler thread for all held locks. Every {@code lease-time / 3} it asks the store to renew every watchdog
 * lease in one batch call ({@link LockStore#renew}). A lease is lost when the store says it is gone or owned by
 * another, or when its deadline passes without a successful renewal (store unreachable).
 * <p>
 * The deadline is watched on its own: a guard fires at the earliest deadline of the held leases and reports every
 * lease whose deadline passed, also while a renewal call hangs on an unresponsive store (up to
 * {@code distlock.command-timeout}) and between runs. Without it the loss of a lease whose renewals fail is reported
 * only at the end of the first run after its deadline — up to a renewal period plus the command timeout after the
 * store may have handed the lock to another node — and a holder that dies in that window never learns it ran
 * unprotected. With the guard a holder is told no later than the moment the lease can have expired in the store.
 * <p>
 * A second scheduler thread ends fixed leases locally when they run out without an unlock and runs the guard, so
 * neither waits behind a renewal call.
 */
final class Watchdog {

    private static final Logger log = LoggerFactory.getLogger(Watchdog.class);

    private final StoreCalls store;

    private final LockListener listener;

    private final Consumer<LeaseHandle> onLost;

    private final Set<LeaseHandle> leases = ConcurrentHashMap.newKeySet();

    private final ScheduledThreadPoolExecutor scheduler;

    private final long periodMillis;

    private volatile @Nullable ScheduledFuture<?> task;

    /** The deadline guard, armed at the earliest deadline of the held leases; see the class comment. */
    private @Nullable ScheduledFuture<?> guard;

    private volatile @Nullable Instant lastRunAt;

    private volatile @Nullable Instant lastSuccessAt;

    private volatile int consecutiveFailures;

    Watchdog(StoreCalls store, Duration leaseTime, LockListener listener, Consumer<LeaseHandle> onLost) {
        this.store = store;
        this.listener = listener;
        this.onLost = onLost;
        this.periodMillis = Math.max(1, leaseTime.toMillis() / 3);
        this.scheduler = new ScheduledThreadPoolExecutor(2, runnable -> {
            Thread thread = new Thread(runnable, "distlock-watchdog");
            thread.setDaemon(true);
            return thread;
        });
        // Cancelled fixed-lease expiries must not pile up in the queue.
        scheduler.setRemoveOnCancelPolicy(true);
    }

    synchronized void start() {
        if (task == null && !scheduler.isShutdown()) {
            task = scheduler.scheduleWithFixedDelay(this::renewAll, periodMillis, periodMillis,
                    TimeUnit.MILLISECONDS);
        }
    }

    void stop() {
        scheduler.shutdownNow();
    }

    void add(LeaseHandle handle) {
        leases.add(handle);
    }

    void remove(LeaseHandle handle) {
        leases.remove(handle);
    }

    /**
     * Runs the release when a handle's hold-at-least time is over; nothing once the service shuts down (the lease
     * ends the lock then).
     */
    void releaseLater(LeaseHandle handle, long delayNanos, Consumer<LeaseHandle> release) {
        try {
            scheduler.schedule(() -> release.accept(handle), delayNanos, TimeUnit.NANOSECONDS);
        }
        catch (RejectedExecutionException ex) {
            // Shutting down: the lease ends the lock.
        }
    }

    /** Runs the action when the handle's fixed lease has run out. */
    void expireAt(LeaseHandle handle, Consumer<LeaseHandle> onExpired) {
        try {
            long delay = handle.leaseDeadlineNanos() - System.nanoTime();
            handle.expireWith(scheduler.schedule(() -> onExpired.accept(handle), delay, TimeUnit.NANOSECONDS));
        }
        catch (RejectedExecutionException ex) {
            // Shutting down: the lease ends with the service.
        }
    }

    /** Renews every watchdog lease; runs on the scheduler thread only. */
    void renewAll() {
        // Everything is caught: an exception escaping a periodic task would silently cancel all later runs.
        try {
            lastRunAt = Instant.now();
            // A hand-over awaiting its confirmation is renewed by it (the store would not renew it before); one
            // whose confirmation has not come by the hand-over's end is lost.
            List<LeaseHandle> due = new ArrayList<>(leases.size());
            for (LeaseHandle handle : leases) {
                if (!handle.awaitingConfirmation()) {
                    due.add(handle);
                }
                else if (handle.pastDeadline(System.nanoTime())) {
                    onLost.accept(handle);
                }
            }
            if (due.isEmpty()) {
                succeeded();
                return;
            }
            armGuard(); // this run's renewal call may hang past a deadline
            long sent = System.nanoTime();
            List<RenewalResult> results = store.renew(due);
            int[] counts = new int[RenewalResult.values().length];
            for (int i = 0; i < due.size(); i++) {
                LeaseHandle handle = due.get(i);
                RenewalResult result = results.get(i);
                if (result == RenewalResult.RENEWED) {
                    handle.renewed(sent);
                }
                else if (result == RenewalResult.LOST || handle.pastDeadline(System.nanoTime())) {
                    onLost.accept(handle);
                }
                counts[result.ordinal()]++;
            }
            if (counts[RenewalResult.ERROR.ordinal()] == 0) {
                succeeded();
            }
            else {
                consecutiveFailures++;
            }
            for (RenewalResult result : RenewalResult.values()) {
                if (counts[result.ordinal()] > 0) {
                    listener.renewed(result, counts[result.ordinal()]);
                }
            }
            armGuard(); // renewed deadlines moved on; a failed renewal's deadline may come before the next run
        }
        catch (Throwable ex) {
            log.warn("Lease watchdog run failed", ex);
        }
    }

    /** (Re-)arms the guard at the earliest deadline of the held leases that expire in the store. */
    private synchronized void armGuard() {
        long earliest = Long.MAX_VALUE;
        boolean any = false;
        for (LeaseHandle handle : leases) {
            if (handle.expires() && (!any || handle.leaseDeadlineNanos() - earliest < 0)) {
                earliest = handle.leaseDeadlineNanos();
                any = true;
            }
        }
        ScheduledFuture<?> previous = guard;
        if (previous != null) {
            previous.cancel(false);
        }
        guard = null;
        if (any) {
            try {
                guard = scheduler.schedule(this::reportPastDeadlines, Math.max(0, earliest - System.nanoTime()),
                        TimeUnit.NANOSECONDS);
            }
            catch (RejectedExecutionException ex) {
                // Shutting down: the leases end with the service.
            }
        }
    }

    /** The guard: reports every lease whose deadline passed (at most once each, see LeaseEndings.leaseLost). */
    private void reportPastDeadlines() {
        try {
            long now = System.nanoTime();
            for (LeaseHandle handle : leases) {
                if (handle.pastDeadline(now)) {
                    onLost.accept(handle);
                }
            }
            armGuard();
        }
        catch (Throwable ex) {
            log.warn("Lease deadline check failed", ex);
        }
    }

    private void succeeded() {
        lastSuccessAt = Instant.now();
        consecutiveFailures = 0;
    }

    WatchdogStatus status() {
        long now = System.nanoTime();
        long lateNanos = 2 * periodMillis * 1_000_000L;
        boolean onTime = leases.stream().noneMatch(h -> now - h.lastRenewalNanos() > lateNanos);
        return new WatchdogStatus(task != null && !scheduler.isShutdown(), leases.size(), lastRunAt, lastSuccessAt,
                consecutiveFailures, onTime);
    }
}
