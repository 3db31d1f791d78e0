package dev.distlock.spi;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;

/**
 * Where locks live: the small provider interface behind the store-neutral engine
 * ({@link dev.distlock.core.StoreLockService}). The engine does everything that is the same for every store —
 * local queues, waiting and waking, reentrancy, the watchdog schedule, listeners, the held-lock registry — and
 * asks the store only these questions.
 * <p>
 * Every question is answered asynchronously, and a store does not bound its answers in time: the engine waits for
 * each at most {@code distlock.command-timeout} (plus {@link #answerAllowance()}) and turns a late or failed answer
 * into {@link dev.distlock.LockUnavailableException} for the caller. An attempt whose answer came too late (or
 * failed) is undone by the engine with {@link #cancel}, chained on the attempt's own stage so that the undo is sent
 * strictly after the attempt. Renewals are batched by the engine, which maps the results back to its leases. A
 * store reports a failure by completing the stage exceptionally (with {@link dev.distlock.LockUnavailableException}
 * when it has a better message than the engine); it throws only for a request it refuses outright (e.g. an
 * {@link IllegalArgumentException} for a name it cannot store), which reaches the caller unchanged.
 * <p>
 * Implementations are thread-safe and never block the calling thread on the network. Every store passes the same
 * contract test suite ({@code LockStoreContractTests} in module {@code distlock-test}).
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
     * Repeating an attempt for the same request is safe: when it already holds the lock it gets the same fencing
     * token again.
     *
     * @param request the request
     * @param remainingWaitMillis how much longer the caller will wait; 0 for a last (or only) attempt. A store may
     *        record a waiting caller so that a release hands the lock to it
     * @param retry false on the request's first attempt, true after a {@link Attempt#busy busy} answer
     * @return granted with a fencing token, or busy
     */
    CompletionStage<Attempt> attempt(LockRequest request, long remainingWaitMillis, boolean retry);

    /**
     * Undoes whatever the request holds or registered: its waiter registration, a reservation for it, or the lock
     * itself when an attempt granted it but the caller never learned so (its answer came late). Called when the
     * request stops waiting (timeout, interrupt) and after an attempt whose answer the caller did not take. Sent
     * after everything sent before for the same request. Best effort: the engine logs a failure and goes on.
     *
     * @param request the request
     * @return completes when the store answered
     */
    CompletionStage<Void> cancel(LockRequest request);

    /**
     * Releases a lease, only if it is still the owner, and hands the lock to the next waiter if the store does so.
     *
     * @param lease the lease
     * @return {@link ReleaseResult#RELEASED}, or {@link ReleaseResult#EXPIRED} when the lease had already ended
     *         or another owner holds the lock
     */
    CompletionStage<ReleaseResult> release(Lease lease);

    /**
     * Force release, an operator's action ({@code DELETE /actuator/distlock/{name}}): ends the lease of whoever
     * holds the name, on any instance, owner unchecked, and hands the lock to the next waiter as a release does.
     * The next holder's fencing token must be above every token issued for the name before, so the old holder's
     * fenced writes are refused; the old holder learns of the loss at its next renewal, or sooner where the store
     * watches its holders. Queued waiters keep their places.
     *
     * @param name the lock name
     * @return true when somebody held the lock (and no longer does), false when it was free
     */
    CompletionStage<Boolean> forceRelease(String name);

    /**
     * Renews watchdog leases by their request's lease time, each only if it is still the owner. The engine passes
     * at most {@code RENEWAL_BATCH} leases of distinct requests per call; a store sends them in as few round trips
     * as it can.
     *
     * @param leases the leases to renew
     * @return exactly one result per lease, in the order of {@code leases}: renewed, lost (gone or taken), or error
     *         (unknown: the store could not answer for it)
     */
    CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases);

    /**
     * @return whether the store answers now, with details; the engine bounds the wait and reports a store that
     *         does not answer in time as down
     */
    CompletionStage<StoreHealth> health();

    /**
     * @return how much longer than {@code distlock.command-timeout} an answer may take by design, e.g. an attempt
     *         that also waits for replicas to acknowledge the write, for up to its own timeout
     */
    default Duration answerAllowance() {
        return Duration.ZERO;
    }

    /**
     * A store whose leases do not expire must also see its releases and cancels through: the engine tries each once,
     * and a lock entry left behind would block the lock for as long as the session lasts (the ZooKeeper store
     * deletes with Curator's guaranteed deletes, the etcd store sends a delete again until etcd confirms it).
     *
     * @return false when a lease lasts as long as the store's session rather than a lease time (ZooKeeper, etcd's
     *         shared leases): the engine then renews nothing and the store reports loss through
     *         {@link StoreEvents#leaseLost}
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
     * Permits: a request with {@link LockRequest#permits()} above 1 holds the name together with at most that many
     * holders less one. Such a store grants it while fewer hold the name and no earlier waiter of the name is served
     * first (arrival order, where the store queues waiters); releases, renews and cancels it per owner token like a
     * lock; issues tokens that increase per name in grant order across all the holders; and fails an attempt with
     * {@link dev.distlock.LockException} naming both numbers when the name is held or awaited with another number
     * of permits (1 for a lock). The engine refuses permits on a store without them.
     * <p>
     * Grant order is the store's: the order in which it gives the name to requests (on Redis when it reserves a
     * freed permit for a waiter, or grants an attempt; on ZooKeeper and etcd the order of the requests' places in
     * line). Two waiters let in by one release may return from their attempts in either order; what every store
     * keeps, and the contract suite checks, is that a request made after a grant was returned gets a higher token
     * than that grant: a token is issued after its request is made.
     *
     * @return whether the store takes requests with several permits
     */
    default boolean supportsPermits() {
        return false;
    }

    /**
     * A cheap local check, made by {@link dev.distlock.LockHandle#isHeld()}; never a network call.
     *
     * @param lease a lease this store granted
     * @return false when the store already knows that the lease may be gone (e.g. a suspended session)
     */
    default boolean isHeld(Lease lease) {
        return true;
    }

    /**
     * Stops background work and closes connections the store opened. Releases nothing: the engine released what
     * it held before.
     */
    @Override
    void close();
}
