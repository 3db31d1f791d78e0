package dev.distlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LockHandle;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * The outermost acquisition of a lock: the lease a store granted. Reentrant holds in a scope
 * ({@link ReentrantHandle}) count on top of it; the store is released when the last hold is released.
 */
final class LeaseHandle implements LockHandle, Lease {

    /** Where the lease stands. */
    enum State {
        /** Held, as far as this JVM knows. */
        HELD,
        /** The watchdog or the store found the lease gone while held. */
        LOST,
        /** A fixed lease ran out before the unlock. */
        EXPIRED,
        /** Released (or the release was attempted). */
        RELEASED
    }

    private final LeaseLifecycle service;

    private final LockRequest request;

    private final long fencingToken;

    private final LocalQueues.Entry localEntry;

    private final boolean expires;

    /** The fencing token the store issued for this lease, and when its reply arrived: bounds local tokens. */
    private final long storeToken;

    private final long storeTokenNanos;

    private final Instant acquiredAt = Instant.now();

    private final long acquiredNanos = System.nanoTime();

    /** When the lease ends unless renewed, as known here (measured from before the request was sent). */
    private volatile long leaseDeadlineNanos;

    private volatile long renewals;

    private volatile @Nullable Instant lastRenewalAt;

    private volatile long lastRenewalNanos;

    private volatile @Nullable ScheduledFuture<?> expiry;

    /** Told once when the lease is found lost (a leadership campaign's thread); null when nobody waits for it. */
    private volatile @Nullable Runnable lossWatcher;

    /** Until when an unlock leaves the lock held (hold at least), from the grant; 0 for a release at the unlock. */
    private volatile long holdUntilNanos;

    private final AtomicReference<State> state = new AtomicReference<>(State.HELD);

    /** 1 for this handle plus one per reentrant hold not yet released; 0 once the lock is being released. */
    private final AtomicInteger holds = new AtomicInteger(1);

    private final AtomicBoolean unlocked = new AtomicBoolean();

    private final AtomicBoolean localReleased = new AtomicBoolean();

    /**
     * The store's answer to a hand-over's confirmation ({@link #handedOver}), shared by the handles a local hand-off
     * passes the lease on to: true once the store granted the lease; null for a lease the store granted to an attempt.
     */
    private final @Nullable CompletableFuture<Boolean> storeConfirmation;

    /** When the confirmation was sent ({@link System#nanoTime()}): the confirmed lease counts from then. */
    private final long confirmSentNanos;

    /** {@link #storeConfirmation}, done once this handle's deadline follows it. */
    private final @Nullable CompletableFuture<Boolean> confirmation;

    /** A lease the store just granted. */
    LeaseHandle(LeaseLifecycle service, LockRequest request, long fencingToken, LocalQueues.Entry localEntry,
            long requestSentNanos, boolean expires) {
        this(service, request, fencingToken, localEntry, requestSentNanos,
                ClockDrift.deadline(requestSentNanos, request.leaseTime()), expires, null, 0);
    }

    private LeaseHandle(LeaseLifecycle service, LockRequest request, long fencingToken, LocalQueues.Entry localEntry,
            long sinceNanos, long deadlineNanos, boolean expires,
            @Nullable CompletableFuture<Boolean> storeConfirmation, long confirmSentNanos) {
        this.service = service;
        this.request = request;
        this.fencingToken = fencingToken;
        this.localEntry = localEntry;
        this.expires = expires;
        this.storeToken = fencingToken;
        this.storeTokenNanos = System.nanoTime();
        this.lastRenewalNanos = sinceNanos;
        this.leaseDeadlineNanos = deadlineNanos;
        this.storeConfirmation = storeConfirmation;
        this.confirmSentNanos = confirmSentNanos;
        this.confirmation = followConfirmation();
    }

    /** Moves this handle's deadline to the full lease once the store confirms the hand-over. */
    private @Nullable CompletableFuture<Boolean> followConfirmation() {
        CompletableFuture<Boolean> answer = storeConfirmation;
        return answer == null ? null : answer.thenApply(confirmed -> {
            if (confirmed) {
                leaseFrom(confirmSentNanos);
            }
            return confirmed;
        });
    }

    /**
     * A lease a release handed to this request with its token ({@link dev.distlock.spi.StoreEvents#handedOver}),
     * counted on until the hand-over's own end at the earliest, until the store confirms it with the full lease.
     *
     * @param handedAtNanos the hand-over's earliest possible start, as {@link System#nanoTime()}
     * @param handedFor how long the store holds the hand-over for this request
     * @param confirmation completes with true once the store granted this request the lock with this token (the
     *        lease then counts from {@code confirmSentNanos}), with false when it did not
     * @param confirmSentNanos {@link System#nanoTime()} before the confirmation was sent
     */
    static LeaseHandle handedOver(LeaseLifecycle service, LockRequest request, long fencingToken,
            LocalQueues.Entry localEntry, long handedAtNanos, Duration handedFor,
            CompletableFuture<Boolean> confirmation, long confirmSentNanos) {
        return new LeaseHandle(service, request, fencingToken, localEntry, handedAtNanos,
                ClockDrift.deadline(handedAtNanos, handedFor), true, confirmation, confirmSentNanos);
    }

    /** @return whether the store has yet to confirm this hand-over: the watchdog leaves it to the confirmation */
    boolean awaitingConfirmation() {
        CompletableFuture<Boolean> pending = confirmation;
        return pending != null && !pending.isDone();
    }

    /** @return whether the store answered that it did not confirm this hand-over: the lease is lost */
    boolean unconfirmed() {
        CompletableFuture<Boolean> answer = confirmation;
        return answer != null && answer.isDone() && !answer.join();
    }

    /** Runs the action if the store does not confirm this hand-over (now or later; never for a granted lease). */
    void whenUnconfirmed(Runnable lost) {
        CompletableFuture<Boolean> pending = confirmation;
        if (pending != null) {
            pending.thenAccept(confirmed -> {
                if (!confirmed) {
                    lost.run();
                }
            });
        }
    }

    /** The same store lease, handed over to the next thread of this JVM with the next fencing token. */
    private LeaseHandle(LeaseHandle previous, long fencingToken) {
        this.service = previous.service;
        this.request = previous.request;
        this.fencingToken = fencingToken;
        this.localEntry = previous.localEntry;
        this.expires = previous.expires;
        this.storeToken = previous.storeToken;
        this.storeTokenNanos = previous.storeTokenNanos;
        this.lastRenewalNanos = previous.lastRenewalNanos;
        this.leaseDeadlineNanos = previous.leaseDeadlineNanos;
        // A hand-over still on its way to being confirmed is passed on with its confirmation (once done, following
        // it sets the full lease at once, also if the previous holder's deadline was copied before it moved).
        this.storeConfirmation = previous.storeConfirmation;
        this.confirmSentNanos = previous.confirmSentNanos;
        this.confirmation = followConfirmation();
    }

    /**
     * @param fencingToken the next holder's token
     * @return a handle for the next holder of this (released) handle's store lease
     */
    LeaseHandle handOver(long fencingToken) {
        return new LeaseHandle(this, fencingToken);
    }

    /**
     * The highest token this JVM may issue now without the store: the store's token plus the microseconds since
     * its reply. The store issued it at most at its clock, and the store's clock has advanced at least that much
     * since, so a token issued after a crash (at least the store's clock) is above every local one.
     */
    long clockBoundToken() {
        return storeToken + (System.nanoTime() - storeTokenNanos) / 1000;
    }

    @Override
    public String name() {
        return request.name();
    }

    @Override
    public long fencingToken() {
        return fencingToken;
    }

    @Override
    public LockRequest request() {
        return request;
    }

    /** @return the lifecycle of the service that issued this lease */
    LeaseLifecycle issuer() {
        return service;
    }

    LocalQueues.Entry localEntry() {
        return localEntry;
    }

    @Override
    public boolean isHeld() {
        return !unlocked.get() && isLockHeld();
    }

    /** @return whether the lease (of this handle or a reentrant hold on it) can still be counted on */
    boolean isLockHeld() {
        return state.get() == State.HELD && (!expires || System.nanoTime() - leaseDeadlineNanos < 0)
                && service.storeMayHold(this);
    }

    @Override
    public void unlock() {
        if (unlocked.compareAndSet(false, true)) {
            releaseHold();
        }
    }

    /**
     * Adds a reentrant hold, atomically with respect to the release of the last one.
     *
     * @return the new hold, or {@code null} when the lock is being released or its lease can no longer be counted
     *         on
     */
    @Nullable ReentrantHandle tryEnter() {
        while (true) {
            int current = holds.get();
            if (current == 0 || !isLockHeld()) {
                return null;
            }
            if (holds.compareAndSet(current, current + 1)) {
                return new ReentrantHandle(this);
            }
        }
    }

    /** Drops one hold; the last one releases the lock in the store. */
    void releaseHold() {
        if (holds.decrementAndGet() == 0) {
            service.lastHoldReleased(this);
        }
    }

    /** @return the state before; the lease is {@link State#RELEASED} from now on */
    State markReleased() {
        return state.getAndSet(State.RELEASED);
    }

    boolean markLost() {
        return state.compareAndSet(State.HELD, State.LOST);
    }

    /**
     * @param watcher told when the lease is found lost (by the watchdog's deadline guard, a renewal or the store);
     *        check {@link #isHeld()} after setting it, since a loss before it was set is not told again
     */
    void watchLoss(Runnable watcher) {
        lossWatcher = watcher;
    }

    /** Tells the loss watcher, if any. */
    void lossFound() {
        Runnable watcher = lossWatcher;
        if (watcher != null) {
            watcher.run();
        }
    }

    boolean markExpired() {
        return state.compareAndSet(State.HELD, State.EXPIRED);
    }

    /**
     * @param holdAtLeast how long after now (the grant) an unlock leaves the lock held; zero for none
     */
    void holdAtLeast(Duration holdAtLeast) {
        holdUntilNanos = holdAtLeast.isZero() ? 0 : System.nanoTime() + holdAtLeast.toNanos();
    }

    /**
     * @return how much longer an unlock now must leave the lock held (0: release it); once: later calls say 0, so
     *         the release that comes when the time is up goes through
     */
    long takeHoldLeftNanos(long nowNanos) {
        long until = holdUntilNanos;
        holdUntilNanos = 0;
        return (until == 0) ? 0 : Math.max(0, until - nowNanos);
    }

    void renewed(long sentNanos) {
        leaseFrom(sentNanos);
        lastRenewalAt = Instant.now();
        renewals++;
    }

    /** The whole lease counts from when the request that granted or renewed it was sent. */
    private void leaseFrom(long sentNanos) {
        leaseDeadlineNanos = ClockDrift.deadline(sentNanos, request.leaseTime());
        lastRenewalNanos = sentNanos;
    }

    /**
     * @return whether less than a third of the lease is left: the watchdog renews every third of it, so a lease it
     *         renews always has more, and this one's renewals have been failing for a while; for a hand-over awaiting
     *         its confirmation, whether the hand-over has ended
     */
    boolean renewalsFailing(long nowNanos) {
        if (awaitingConfirmation()) {
            return pastDeadline(nowNanos); // its renewal, the confirmation, is on its way
        }
        return expires && leaseDeadlineNanos - nowNanos < request.leaseTime().toNanos() / 3;
    }

    /** @return whether the lease ends in the store by itself (not a session-bound lease) */
    boolean expires() {
        return expires;
    }

    /** @return whether the lease can have run out by now (renewals failing) */
    boolean pastDeadline(long nowNanos) {
        return expires && nowNanos - leaseDeadlineNanos >= 0;
    }

    long leaseDeadlineNanos() {
        return leaseDeadlineNanos;
    }

    long lastRenewalNanos() {
        return lastRenewalNanos;
    }

    void expireWith(ScheduledFuture<?> task) {
        expiry = task;
    }

    /** Lets the next thread of this JVM compete for the lock. Runs once. */
    void releaseLocal() {
        if (localReleased.compareAndSet(false, true)) {
            ScheduledFuture<?> pending = expiry;
            if (pending != null) {
                pending.cancel(false);
            }
            service.localHoldEnded(this);
        }
    }

    HeldLockInfo info(long nowNanos) {
        Duration remaining = expires ? Duration.ofNanos(Math.max(0, leaseDeadlineNanos - nowNanos))
                : request.leaseTime();
        return new HeldLockInfo(request.name(), fencingToken, acquiredAt, Duration.ofNanos(nowNanos - acquiredNanos),
                remaining, request.watchdog(), renewals, lastRenewalAt);
    }

    @Override
    public String toString() {
        return "LockHandle[" + request.name() + ", fencingToken=" + fencingToken
                + (request.shared() ? ", read" : "") + "]";
    }
}
