package dev.distlock.core;

import java.time.Duration;
import java.util.function.Consumer;

import dev.distlock.LockType;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.StoreTraits;
import org.jspecify.annotations.Nullable;

/**
 * Passes a held lock straight to the next thread of this JVM that waits for it, without a store round trip: the
 * store lease (owner token, watchdog renewals) stays as it is, and the next holder gets the next fencing token.
 * <p>
 * <b>Fairness:</b> a streak of local hand-offs ends after {@code maxCount} hand-offs or {@code maxTime}, whichever
 * comes first; then the lock is released to the store, which hands it to the longest-waiting waiter of any JVM.
 * {@link LockType#FAIR} locks, read locks and fixed leases are never handed over locally.
 * <p>
 * <b>Fencing:</b> local tokens count up from the store's token, never faster than the clock: a token is at most the
 * store's token plus the microseconds since the store issued it ({@link StoreLease#clockBoundToken()}), so a
 * token the store issues later — at least its clock in microseconds, also after this JVM crashed mid-streak — is
 * above every local one. The store learns the last local token at release, and passes it on with a hand-off.
 * Only stores whose tokens follow the clock ({@link StoreTraits.TokenSource#CLOCK}) allow this; such a store keeps
 * the released lease's token as the floor of the next (its duty on {@link dev.distlock.spi.LockStore#release}).
 * <p>
 * <b>Lease:</b> only a lease with more than a third of it left is handed over ({@link StoreLease#renewalsFailing}):
 * one whose renewals fail goes back to the store, so a local thread is never granted the last moments of a lease
 * that another node is about to be granted in the store.
 */
final class LocalHandOff {

    private final boolean enabled;

    private final int maxCount;

    private final long maxNanos;

    /** Set from the start of the shutdown: a lease left for a local thread then might never be released. */
    private volatile boolean stopped;

    LocalHandOff(StoreTraits traits, int maxCount, Duration maxTime) {
        this.enabled = traits.tokensFollowClock() && maxCount > 0 && !maxTime.isZero();
        this.maxCount = maxCount;
        this.maxNanos = maxTime.toNanos();
    }

    /**
     * Called by the releasing thread, which still holds the local permit.
     *
     * @param releasing the handle being released
     * @return true when the lease was left for the next local thread: the store must not be released then
     */
    boolean offer(LeaseHandle releasing) {
        StoreLease lease = releasing.lease();
        LocalQueues.Entry entry = lease.localEntry();
        if (!enabled || stopped || !eligible(lease.request()) || !entry.othersWaiting()
                || lease.renewalsFailing(System.nanoTime()) || !entry.streakAllows(maxCount, maxNanos)
                || !lease.leave(releasing)) {
            return false;
        }
        entry.leaveLease(lease);
        return true;
    }

    /** From now on every release goes to the store: the service is shutting down. */
    void stop() {
        stopped = true;
    }

    /**
     * Called by a thread that just got the local permit.
     *
     * @param service the lifecycle the new handle belongs to
     * @return a handle over the lease left by the previous holder, or {@code null} when there is none, it does
     *         not fit this request or it ended meanwhile (it is then returned through {@code unusable})
     */
    @Nullable LeaseHandle take(LeaseLifecycle service, LocalQueues.Entry entry, LockRequest request,
            Consumer<StoreLease> unusable) {
        StoreLease left = entry.takeLeftLease();
        if (left == null) {
            return null;
        }
        LockRequest held = left.request();
        LeaseHandle next = null;
        if (!left.renewalsFailing(System.nanoTime()) && eligible(request) && held.type() == request.type()
                && held.leaseTime().equals(request.leaseTime())) {
            next = LeaseHandle.next(service, left, nextToken(left)); // null when the lease ended meanwhile
        }
        if (next == null) {
            unusable.accept(left);
            return null;
        }
        entry.countHandOff();
        return next;
    }

    private static boolean eligible(LockRequest request) {
        return request.watchdog() && request.type() != LockType.FAIR && !request.sharesName();
    }

    /** The next token: one more, once the clock allows it (hand-offs faster than one per microsecond wait). */
    private static long nextToken(StoreLease lease) {
        long next = lease.fencingToken() + 1;
        while (next > lease.clockBoundToken()) {
            Thread.onSpinWait();
        }
        return next;
    }
}
