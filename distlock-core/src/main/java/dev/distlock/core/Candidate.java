package dev.distlock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.locks.LockSupport;
import java.util.function.Consumer;

import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;
import dev.distlock.leader.Leadership;
import dev.distlock.leader.LeadershipListener;
import dev.distlock.listener.LockListener;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One leadership candidate ({@link dev.distlock.LockService#campaign}), on a thread of its own: it waits for the
 * group's lock like any caller (woken by the store's release notifications), leads while it holds the lease, and
 * waits again after the leadership ended. The lease's loss is seen the moment the engine finds it (the deadline
 * guard, a renewal, the store's session), which wakes this thread to tell the listener {@code revoked}: no later
 * than the lease can have expired in the store (the engine's deadline is the lease less the clock-drift margin), and
 * a tenth of the lease before that deadline when the watchdog has not renewed the lease in time.
 * {@code granted} runs on a thread of its own, so a listener that starts the leader's work inline does not hold
 * {@code revoked} back (review 4, F5); a term revoked, or whose lease ended, before its {@code granted} started tells
 * neither. A yield or a close tells the listener first and releases the lease after: the next leader is told after.
 */
final class Candidate implements Leadership {

    private static final Logger log = LoggerFactory.getLogger(Candidate.class);

    /** How long one wait for the lock lasts before the thread checks whether the candidate was closed. */
    private static final Duration WAIT = Duration.ofMinutes(1);

    /** The pause after the store failed to answer, before the next attempt. */
    private static final Duration RETRY_PAUSE = Duration.ofSeconds(1);

    /**
     * The pause after a yield before campaigning again: a candidate that was waiting is served first also on a store
     * whose waiters poll (JDBC backs off to at most 150 ms) or that does not queue them.
     */
    private static final Duration YIELD_PAUSE = Duration.ofSeconds(1);

    /**
     * While leading, how often the thread also looks at the lease by itself: a backstop, should a store's lease
     * stop counting ({@code isHeld()} false) before the engine reports it lost, which wakes the thread at once.
     */
    private static final Duration LEASE_RECHECK = Duration.ofMillis(250);

    private final LockService service;

    private final String group;

    private final LeadershipListener listener;

    private final LockListener events;

    private final Consumer<Candidate> ended;

    private final Duration closeTimeout;

    private final Thread thread;

    private final ExecutorService grantedCalls; // runs granted, term after term, apart from this thread

    private volatile boolean closed;

    private volatile boolean yieldRequested;

    private boolean waiting; // for the lock, so a close may interrupt it; guarded by this

    /** The lease while leader. */
    private volatile @Nullable LeaseHandle lease;

    /**
     * @param service the lock service the candidate locks through
     * @param group the group
     * @param listener told when this instance becomes and stops being the leader
     * @param events the service's listener (the leader gauge)
     * @param ended called once the candidate's thread ended
     * @param closeTimeout how long {@link #close()} waits for the thread to release the lease
     */
    Candidate(LockService service, String group, LeadershipListener listener, LockListener events,
            Consumer<Candidate> ended, Duration closeTimeout) {
        this.service = service;
        this.group = group;
        this.listener = listener;
        this.events = events;
        this.ended = ended;
        this.closeTimeout = closeTimeout;
        this.thread = new Thread(this::run, "distlock-leader-" + group);
        this.thread.setDaemon(true);
        this.grantedCalls = Executors.newSingleThreadExecutor(runnable -> {
            Thread granted = new Thread(runnable, "distlock-leader-" + group + "-granted");
            granted.setDaemon(true);
            return granted;
        });
    }

    /**
     * @param group the group
     * @return the name of the group's lock
     */
    static String lockName(String group) {
        return "leader:" + group;
    }

    void start() {
        events.leadershipChanged(group, false, true);
        thread.start();
    }

    private void run() {
        try {
            while (!closed) {
                LeaseHandle granted = awaitLease();
                if (granted != null) {
                    lead(granted);
                }
            }
        }
        finally {
            grantedCalls.shutdown();
            events.leadershipChanged(group, false, false);
            ended.accept(this);
        }
    }

    /** @return the lease, or {@code null} when the wait ended without it (closed, timed out, store down) */
    private @Nullable LeaseHandle awaitLease() {
        synchronized (this) {
            if (closed) {
                return null;
            }
            waiting = true;
        }
        yieldRequested = false; // a yield is for a leadership held when it was asked for
        try {
            Optional<LockHandle> granted = service.tryLock(lockName(group), LockOptions.defaults()
                    .withWaitTime(WAIT));
            return (LeaseHandle) granted.orElse(null);
        }
        catch (LockUnavailableException ex) {
            if (!closed) {
                log.debug("Leadership candidate for '{}': the store did not answer, trying again: {}", group,
                        ex.getMessage());
                LockSupport.parkNanos(this, RETRY_PAUSE.toNanos());
            }
            return null;
        }
        catch (LockException ex) {
            return null; // interrupted by close()
        }
        finally {
            synchronized (this) {
                waiting = false;
            }
            Thread.interrupted(); // a close's interrupt must not cut the release short
        }
    }

    private void lead(LeaseHandle granted) {
        granted.watchLoss(() -> LockSupport.unpark(thread));
        lease = granted;
        events.leadershipChanged(group, true, true);
        log.info("This instance leads '{}' (fencing token {})", group, granted.fencingToken());
        LeadershipTerm term = new LeadershipTerm();
        grantedCalls.execute(() -> {
            // Not for a lease that ended before this ran (a JVM frozen after the grant resumes both threads at once).
            if (granted.isHeld() && term.startGranted()) {
                try {
                    listener.granted(group, granted);
                }
                catch (RuntimeException ex) {
                    log.warn("Leadership listener failed on granted('{}'); still leader", group, ex);
                }
            }
        });
        // Unrenewed, the term ends a tenth of the lease before its deadline: a callback due at the deadline comes late
        // on a machine too busy to run the guard's and this thread in time (seen at load 40: told 21 ms after the next
        // leader began). A lease the watchdog renews never comes this close; a store hand-over awaiting its
        // confirmation does, and is left to its deadline.
        long ahead = granted.request().leaseTime().toNanos() / 10;
        boolean unrenewed = false;
        while (!closed && !yieldRequested && granted.isHeld()) {
            long left = granted.leaseRemaining(System.nanoTime()).toNanos() - ahead;
            if (left <= 0 && !granted.lease().awaitingConfirmation()) {
                unrenewed = true;
                break;
            }
            LockSupport.parkNanos(this, left > 0 ? Math.min(left, LEASE_RECHECK.toNanos()) : LEASE_RECHECK.toNanos());
        }
        lease = null;
        boolean lost = !granted.isHeld();
        events.leadershipChanged(group, false, !closed);
        if (lost || unrenewed) {
            log.warn("This instance no longer leads '{}': its lease was lost, can have expired or was not renewed",
                    group);
        }
        else {
            log.info("This instance gives up the leadership of '{}'", group);
        }
        if (term.revoke()) {
            try {
                listener.revoked(group);
            }
            catch (RuntimeException ex) {
                log.warn("Leadership listener failed on revoked('{}')", group, ex);
            }
        }
        boolean yielded = yieldRequested && !closed && !lost;
        yieldRequested = false;
        Thread.interrupted();
        try {
            granted.unlock();
        }
        catch (RuntimeException ex) {
            log.debug("Release of the leadership lease of '{}' failed; it will expire", group, ex);
        }
        if (yielded) {
            pauseAfterYield();
        }
    }

    /**
     * Pauses the whole {@link #YIELD_PAUSE}, or until a close: a park can return early, e.g. on a wake-up left over
     * from the yield itself (it arrived as the leading loop woke on its own), and a candidate that re-campaigned at
     * once would win again on a store whose waiters poll.
     */
    private void pauseAfterYield() {
        long until = System.nanoTime() + YIELD_PAUSE.toNanos();
        for (long left = YIELD_PAUSE.toNanos(); left > 0 && !closed && !Thread.currentThread().isInterrupted();
                left = until - System.nanoTime()) {
            LockSupport.parkNanos(this, left); // a close unparks it
        }
    }

    @Override
    public String group() {
        return group;
    }

    @Override
    public boolean isLeader() {
        LeaseHandle current = lease;
        return current != null && current.isHeld();
    }

    @Override
    public Optional<LockHandle> lease() {
        LeaseHandle current = lease;
        return (current != null && current.isHeld()) ? Optional.of(current) : Optional.empty();
    }

    @Override
    public void yieldLeadership() {
        if (lease == null) {
            return; // not leader: nothing to give up, and nothing to remember for a later leadership (F11)
        }
        yieldRequested = true;
        LockSupport.unpark(thread);
    }

    @Override
    public void close() {
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
            if (waiting) {
                thread.interrupt(); // ends the wait for the lock at once
            }
        }
        LockSupport.unpark(thread);
        if (Thread.currentThread() != thread) {
            try {
                thread.join(closeTimeout.toMillis());
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }

    @Override
    public String toString() {
        return "Leadership[" + group + (isLeader() ? ", leader" : "") + (closed ? ", closed" : "") + "]";
    }
}
