package dev.distlock.spi;

import java.time.Duration;
import java.util.List;

/**
 * Where locks live: the small provider interface behind the store-neutral engine
 * ({@link dev.distlock.core.StoreLockService}). The engine does everything that is the same for every store —
 * local queues, waiting and waking, reentrancy, the watchdog schedule, listeners, the held-lock registry — and
 * asks the store only these questions. Every method is bounded by the store's command timeout and reports a store
 * that cannot be reached or answers an error with {@link dev.distlock.LockUnavailableException}.
 * <p>
 * Implementations are thread-safe. Every store passes the same contract test suite (module {@code distlock-test}).
 */
public interface LockStore extends AutoCloseable {

    /**
     * Starts background work (e.g. a subscription to release notifications). Must not fail when the store cannot
     * be reached yet: locking then fails closed per call until it can.
     *
     * @param events where to report releases and lost leases
     */
    void start(StoreEvents events);

    /**
     * One attempt to take the lock. Atomic with ownership (the request's owner token), lease and fencing token.
     * Repeating an attempt for the same request is safe (idempotent when it already holds the lock).
     *
     * @param request the request
     * @param remainingWaitMillis how much longer the caller will wait; 0 for a last (or only) attempt. A store may
     *        record a waiting caller so that a release hands the lock to it
     * @param retry false on the request's first attempt, true after a {@link Attempt#busy busy} answer
     * @return granted with a fencing token, or busy
     * @throws dev.distlock.LockUnavailableException when the store cannot answer; the store has then undone
     *         whatever this request may have taken or registered
     */
    Attempt attempt(LockRequest request, long remainingWaitMillis, boolean retry);

    /**
     * The request stops waiting without the lock (timeout, interrupt): forget its waiter registration and pass on
     * anything reserved for it. Best effort; never throws.
     *
     * @param request the request that got only busy answers
     */
    void cancel(LockRequest request);

    /**
     * Releases a lease, only if it is still the owner, and hands the lock to the next waiter if the store does so.
     *
     * @param lease the lease
     * @return {@link ReleaseResult#RELEASED}, or {@link ReleaseResult#EXPIRED} when the lease had already ended
     *         or another owner holds the lock
     * @throws dev.distlock.LockUnavailableException when the store cannot answer
     */
    ReleaseResult release(Lease lease);

    /**
     * Renews watchdog leases by their request's lease time, each only if it is still the owner. Stores batch this
     * (one call for many leases).
     *
     * @param leases the leases to renew
     * @return one result per lease, in order: renewed, lost (gone or taken), or error (unknown: the store could
     *         not answer for it)
     */
    List<RenewalResult> renew(List<? extends Lease> leases);

    /**
     * @return false when a lease lasts as long as the store's session rather than a lease time (ZooKeeper): the
     *         engine then renews nothing and the store reports loss through {@link StoreEvents#leaseLost}
     */
    default boolean leasesExpire() {
        return true;
    }

    /**
     * @return true when every fencing token this store issues is at least its clock in microseconds (and above
     *         every earlier token): the engine may then hand a held lock to another thread of the JVM with the next
     *         token without asking the store, since a token the store issues later is higher anyway
     */
    default boolean tokensFollowClock() {
        return false;
    }

    /**
     * A cheap local check, made by {@link dev.distlock.LockHandle#isHeld()}.
     *
     * @param lease a lease this store granted
     * @return false when the store already knows that the lease may be gone (e.g. a suspended session)
     */
    default boolean isHeld(Lease lease) {
        return true;
    }

    /**
     * @param timeout how long to wait for the store
     * @return whether the store answers, with details
     */
    StoreHealth health(Duration timeout);

    /**
     * Stops background work and closes connections the store opened. Releases nothing: the engine released what
     * it held before.
     */
    @Override
    void close();
}
