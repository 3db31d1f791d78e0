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
 * The engine's timers for all held leases, on two scheduler threads: the watchdog's renewals, the deadline guard,
 * fixed-lease expiries and hold-at-least releases.
 * <p>
 * <b>Renewals.</b> Every {@code lease-time / 3} the store renews every watchdog lease in batch calls of up to
 * {@value StoreCalls#RENEWAL_BATCH} leases, {@value StoreCalls#RENEWALS_IN_FLIGHT} at the store at a time
 * ({@link dev.distlock.spi.LockStore#renew}), each bounded by
 * {@code distlock.command-timeout} from the previous one's answer ({@link StoreCalls#renew}); each answer is applied
 * to the {@link StoreLease} it is for, whichever thread holds it by then. A lease is lost when the store says it is
 * gone or owned by another, or when its deadline passes without a successful renewal (store unreachable).
 * <p>
 * <b>The deadline guard</b> fires at the earliest deadline of the renewed leases and reports every lease whose
 * deadline passed, also while a renewal call hangs on an unresponsive store (up to {@code distlock.command-timeout}
 * after its last answer) and between runs. It is re-armed whenever a lease with an earlier deadline comes in (a
 * store hand-over's short window: review 4, F2), so a holder is told no later than the moment its lease can have
 * expired in the store.
 * <p>
 * <b>Nothing here waits on the store but the renewal call</b>, which runs on one thread: expiries and hold-at-least
 * releases send their releases without waiting for the answer ({@link StoreCalls#releaseLater}), so the guard and the
 * expiries on the other thread are never late behind a store that does not answer (review 4, F4).
 */
final class LeaseScheduler {

    private static final Logger log = LoggerFactory.getLogger(LeaseScheduler.class);

    private final StoreCalls store;

    private final LockListener listener;

    private final Consumer<StoreLease> onLost;

    private final Set<StoreLease> leases = ConcurrentHashMap.newKeySet();

    private final ScheduledThreadPoolExecutor scheduler;

    private final long periodMillis;

    private volatile @Nullable ScheduledFuture<?> task;

    /** The deadline guard, armed at the earliest deadline of the renewed leases; see the class comment. */
    private volatile @Nullable ScheduledFuture<?> guard;

    /** When the guard fires ({@link System#nanoTime()}); read without the lock to keep {@link #renew} cheap. */
    private volatile long guardAtNanos;

    /**
     * Counts {@link #armGuard}'s scans, odd while one runs (written under the lock only): a lease added during a scan
     * may be missing from it, so {@link #renew} compares such a lease's deadline under the lock, after the scan.
     */
    private volatile long scans;

    /** Runs between a scan and the guard it arms: a test's pause ({@code LeaseSchedulerTests}), nothing otherwise. */
    private volatile Runnable scanned = () -> {
    };

    private volatile @Nullable Instant lastRunAt;

    private volatile @Nullable Instant lastSuccessAt;

    private volatile int consecutiveFailures;

    LeaseScheduler(StoreCalls store, Duration leaseTime, LockListener listener, Consumer<StoreLease> onLost) {
        this.store = store;
        this.listener = listener;
        this.onLost = onLost;
        this.periodMillis = Math.max(1, leaseTime.toMillis() / 3);
        this.scheduler = new ScheduledThreadPoolExecutor(2, runnable -> {
            Thread thread = new Thread(runnable, "distlock-lease-scheduler");
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

    /** Renews the lease from now on, and watches its deadline (at once, when it comes before the armed one). */
    void renew(StoreLease lease) {
        long scan = scans; // before the add: a scan that ends after it may have missed the lease
        if (leases.add(lease)) {
            long deadline = lease.deadlineNanos();
            // The common case, a later deadline than the armed guard's and no scan meanwhile, takes no lock.
            if ((scan & 1) != 0 || guard == null || deadline - guardAtNanos < 0 || scans != scan) {
                armGuardBefore(deadline);
            }
        }
    }

    void stopRenewing(StoreLease lease) {
        leases.remove(lease);
    }

    /** Runs the action after the delay; nothing once the service shuts down (the leases end with it). */
    void runLater(Runnable action, long delayNanos) {
        schedule(action, delayNanos);
    }

    /** Ends the fixed lease when its deadline comes. */
    void expireAt(StoreLease lease, Consumer<StoreLease> onExpired) {
        ScheduledFuture<?> expiry = schedule(() -> onExpired.accept(lease),
                lease.deadlineNanos() - System.nanoTime());
        if (expiry != null) {
            lease.expireWith(expiry);
        }
    }

    private @Nullable ScheduledFuture<?> schedule(Runnable action, long delayNanos) {
        try {
            return scheduler.schedule(action, Math.max(0, delayNanos), TimeUnit.NANOSECONDS);
        }
        catch (RejectedExecutionException ex) {
            return null; // shutting down: the leases end with the service
        }
    }

    /** Renews every watchdog lease; runs on a scheduler thread only. */
    void renewAll() {
        // Everything is caught: an exception escaping a periodic task would silently cancel all later runs.
        try {
            lastRunAt = Instant.now();
            // A store hand-over awaiting its confirmation is renewed by it (the store would not renew it before);
            // the guard reports it lost at its deadline.
            List<StoreLease> due = new ArrayList<>(leases.size());
            for (StoreLease lease : leases) {
                if (!lease.awaitingConfirmation()) {
                    due.add(lease);
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
                StoreLease lease = due.get(i);
                RenewalResult result = results.get(i);
                if (result == RenewalResult.RENEWED) {
                    lease.renewed(sent);
                }
                else if (result == RenewalResult.LOST || lease.pastDeadline(System.nanoTime())) {
                    onLost.accept(lease);
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

    /**
     * (Re-)arms the guard at the earliest deadline of the renewed leases. A lease added meanwhile is either in the
     * scan or, since {@link #renew} sees the scan under way ({@link #scans}), compared with its result under the lock
     * ({@link #armGuardBefore}): review 4's F2 race, where a hand-over added during a scan went unwatched.
     */
    private synchronized void armGuard() {
        scans++;
        try {
            long earliest = Long.MAX_VALUE;
            boolean any = false;
            for (StoreLease lease : leases) {
                if (lease.deadlineCounts() && (!any || lease.deadlineNanos() - earliest < 0)) {
                    earliest = lease.deadlineNanos();
                    any = true;
                }
            }
            scanned.run();
            ScheduledFuture<?> previous = guard;
            if (previous != null) {
                previous.cancel(false);
            }
            guard = any ? schedule(this::reportPastDeadlines, earliest - System.nanoTime()) : null;
            guardAtNanos = earliest;
        }
        finally {
            scans++;
        }
    }

    /** @param pause runs between each scan of the leases and the guard it arms (tests) */
    void onScanned(Runnable pause) {
        scanned = pause;
    }

    /** Arms the guard at the deadline unless it is armed at an earlier one already. */
    private synchronized void armGuardBefore(long deadlineNanos) {
        ScheduledFuture<?> previous = guard;
        if (previous != null && deadlineNanos - guardAtNanos >= 0) {
            return;
        }
        if (previous != null) {
            previous.cancel(false);
        }
        guardAtNanos = deadlineNanos;
        guard = schedule(this::reportPastDeadlines, deadlineNanos - System.nanoTime());
    }

    /** The guard: reports every lease whose deadline passed (at most once each: {@link StoreLease#end}). */
    private void reportPastDeadlines() {
        try {
            long now = System.nanoTime();
            for (StoreLease lease : leases) {
                if (lease.pastDeadline(now)) {
                    onLost.accept(lease);
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
        boolean onTime = leases.stream().noneMatch(lease -> now - lease.lastRenewalNanos() > lateNanos);
        return new WatchdogStatus(task != null && !scheduler.isShutdown(), leases.size(), lastRunAt, lastSuccessAt,
                consecutiveFailures, onTime);
    }
}
