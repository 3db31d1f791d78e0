package dev.distlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * One lease a store granted, from the grant to its end: the one place its state is written. The handles of a local
 * streak ({@link LocalHandOff}) share it, so whatever the store answers about the lease — a renewal, a loss, a
 * hand-over's confirmation — reaches the thread that holds it when the answer comes, never a handle that held it
 * before (review 4, F1). It owns the deadline, the renewals, the confirmation and which handle holds it; it moves
 * from {@link Phase#ACTIVE} to one end once, by compare-and-set ({@link #end}), and {@link LeaseEndings} does what
 * an end means.
 */
final class StoreLease implements Lease {

    /** Where the lease stands. */
    enum Phase {
        /** Counted on (by its holder, or waiting for the next local thread when it has none). */
        ACTIVE,
        /** Found gone while active: a renewal, the deadline guard, the store or a force release said so. */
        LOST,
        /** A fixed lease that ran out before its holder unlocked. */
        EXPIRED,
        /** Released to the store (or the release was attempted). */
        RELEASED
    }

    /**
     * The lease's phase and the handle that holds it, changed together.
     *
     * @param phase where the lease stands
     * @param holder the handle that holds the lease; null while a local hand-off passes it on
     */
    record State(Phase phase, @Nullable LeaseHandle holder) {
    }

    private final LockRequest request;

    private final LocalQueues.Entry localEntry;

    /** Whether the deadline counts: a lease that ends in the store by itself, or any fixed lease (F4). */
    private final boolean deadlineCounts;

    /** The fencing token the store issued, and when its reply arrived: bounds local tokens. */
    private final long storeToken;

    private final long storeTokenNanos;

    private final AtomicReference<State> state = new AtomicReference<>(new State(Phase.ACTIVE, null));

    /** The token of the latest holder: what the store is told at release, and where local tokens count on from. */
    private volatile long latestToken;

    /** When the lease ends unless renewed, as known here (measured from before the request was sent). */
    private volatile long deadlineNanos;

    private volatile long lastRenewalNanos;

    private volatile long renewals;

    private volatile @Nullable Instant lastRenewalAt;

    private volatile @Nullable ScheduledFuture<?> expiry;

    /**
     * The store's answer to a store hand-over's confirmation: true once the store granted the lease (its deadline
     * then follows the full lease); null for a lease the store granted to an attempt.
     */
    private final @Nullable CompletableFuture<Boolean> confirmation;

    private StoreLease(LockRequest request, long token, LocalQueues.Entry localEntry, boolean deadlineCounts,
            long sinceNanos, long deadlineNanos, @Nullable CompletableFuture<Boolean> storeConfirmation,
            long confirmSentNanos) {
        this.request = request;
        this.localEntry = localEntry;
        this.deadlineCounts = deadlineCounts;
        this.storeToken = token;
        this.storeTokenNanos = System.nanoTime();
        this.latestToken = token;
        this.lastRenewalNanos = sinceNanos;
        this.deadlineNanos = deadlineNanos;
        this.confirmation = storeConfirmation == null ? null : storeConfirmation.thenApply(confirmed -> {
            if (confirmed) {
                leaseFrom(confirmSentNanos);
            }
            return confirmed;
        });
    }

    /**
     * @param sentNanos {@link System#nanoTime()} before the granting attempt was sent
     * @param storeLeasesExpire whether the store ends leases by itself (else only a fixed lease's deadline counts)
     * @return a lease the store just granted to an attempt
     */
    static StoreLease granted(LockRequest request, long token, LocalQueues.Entry entry, long sentNanos,
            boolean storeLeasesExpire) {
        return new StoreLease(request, token, entry, storeLeasesExpire || !request.watchdog(), sentNanos,
                ClockDrift.deadline(sentNanos, request.leaseTime()), null, 0);
    }

    /**
     * A lease a release handed to this request with its token (a store hand-over), counted on until the hand-over's
     * own end at the latest, until the store confirms it with the full lease.
     *
     * @param handedAtNanos the hand-over's earliest possible start, as {@link System#nanoTime()}
     * @param handedFor how long the store holds the hand-over for this request
     * @param confirmation completes with true once the store granted this request the lock with this token
     * @param confirmSentNanos {@link System#nanoTime()} before the confirmation was sent: the full lease counts from
     *        then
     */
    static StoreLease handedOver(LockRequest request, long token, LocalQueues.Entry entry, long handedAtNanos,
            Duration handedFor, CompletableFuture<Boolean> confirmation, long confirmSentNanos) {
        return new StoreLease(request, token, entry, true, handedAtNanos,
                ClockDrift.deadline(handedAtNanos, handedFor), confirmation, confirmSentNanos);
    }

    @Override
    public LockRequest request() {
        return request;
    }

    @Override
    public long fencingToken() {
        return latestToken;
    }

    String name() {
        return request.name();
    }

    String ownerToken() {
        return request.ownerToken();
    }

    LocalQueues.Entry localEntry() {
        return localEntry;
    }

    /** The state now; never null (NullAway cannot tell that of an {@code AtomicReference}). */
    private State current() {
        return Objects.requireNonNull(state.get());
    }

    /** @return the handle that holds the lease now, while it is active */
    @Nullable LeaseHandle holder() {
        State now = current();
        return now.phase() == Phase.ACTIVE ? now.holder() : null;
    }

    /**
     * @param handle the new holder: the first one, or the next local thread
     * @return false when the lease is no longer active or somebody holds it
     */
    boolean hold(LeaseHandle handle) {
        State free = current();
        if (free.phase() == Phase.ACTIVE && free.holder() == null
                && state.compareAndSet(free, new State(Phase.ACTIVE, handle))) {
            latestToken = handle.fencingToken();
            return true;
        }
        return false;
    }

    /** @return false when the lease is no longer active: its holder lets it go to the next local thread */
    boolean leave(LeaseHandle handle) {
        State held = current();
        return held.phase() == Phase.ACTIVE && held.holder() == handle
                && state.compareAndSet(held, new State(Phase.ACTIVE, null));
    }

    /**
     * Ends the lease: from {@link Phase#ACTIVE} to any end, or from any end but {@link Phase#RELEASED} to
     * {@link Phase#RELEASED} (the holder's unlock after a loss or an expiry still goes to the store).
     *
     * @return the state before, or {@code null} when this end does not apply (the lease ended that way already)
     */
    @Nullable State end(Phase to) {
        while (true) {
            State before = current();
            if (before.phase() == Phase.RELEASED || (to != Phase.RELEASED && before.phase() != Phase.ACTIVE)) {
                return null;
            }
            if (state.compareAndSet(before, new State(to, before.holder()))) {
                ScheduledFuture<?> pending = expiry;
                if (pending != null) {
                    pending.cancel(false);
                }
                return before;
            }
        }
    }

    /** @return whether the handle holds the lease and its deadline (where it counts) has not passed */
    boolean heldBy(LeaseHandle handle) {
        State now = current();
        return now.phase() == Phase.ACTIVE && now.holder() == handle && !pastDeadline(System.nanoTime());
    }

    /**
     * The highest token this JVM may issue now without the store: the store's token plus the microseconds since
     * its reply. The store issued it at most at its clock, and the store's clock has advanced at least that much
     * since, so a token issued after a crash (at least the store's clock) is above every local one.
     */
    long clockBoundToken() {
        return storeToken + (System.nanoTime() - storeTokenNanos) / 1000;
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

    void renewed(long sentNanos) {
        leaseFrom(sentNanos);
        lastRenewalAt = Instant.now();
        renewals++;
    }

    /** The whole lease counts from when the request that granted or renewed it was sent. */
    private void leaseFrom(long sentNanos) {
        deadlineNanos = ClockDrift.deadline(sentNanos, request.leaseTime());
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
        return deadlineCounts && deadlineNanos - nowNanos < request.leaseTime().toNanos() / 3;
    }

    /** @return whether the deadline counts (a lease that ends in the store by itself, or a fixed lease) */
    boolean deadlineCounts() {
        return deadlineCounts;
    }

    /** @return whether the lease can have run out by now */
    boolean pastDeadline(long nowNanos) {
        return deadlineCounts && nowNanos - deadlineNanos >= 0;
    }

    long deadlineNanos() {
        return deadlineNanos;
    }

    long lastRenewalNanos() {
        return lastRenewalNanos;
    }

    long renewals() {
        return renewals;
    }

    @Nullable Instant lastRenewalAt() {
        return lastRenewalAt;
    }

    void expireWith(ScheduledFuture<?> task) {
        expiry = task;
    }

    @Override
    public String toString() {
        return "StoreLease[" + request.name() + ", " + current().phase() + "]";
    }
}
