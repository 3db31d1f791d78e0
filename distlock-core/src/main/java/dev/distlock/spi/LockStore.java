package dev.distlock.spi;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

import dev.distlock.LockInfo;

/**
 * Where locks live: the provider interface behind the store-neutral engine
 * ({@link dev.distlock.core.StoreLockService}). The engine does everything that is the same for every store (local
 * queues, waiting and waking, reentrancy, local hand-off, the watchdog schedule, deadlines, listeners, the held-lock
 * registry) and asks the store only the questions below. This Javadoc, with that of the value types it names
 * ({@link Attempt}, {@link Waiting}, {@link LockMode}, {@link StoreTraits}, {@link StoreEvents}, {@link HandsOver}), is
 * the one list of a store's duties.
 *
 * <h2>Answers and threads</h2>
 * Every question is answered asynchronously, and a store does not bound its answers in time: the engine waits for
 * each at most {@code distlock.command-timeout} (plus {@link StoreTraits#answerAllowance()}) and turns a late or
 * failed answer into {@link dev.distlock.LockUnavailableException} for the caller. An attempt whose answer came too
 * late (or failed) is undone by the engine with {@link #cancel}, chained on the attempt's own stage so that the undo
 * is sent strictly after the attempt. Renewals are batched by the engine, which maps the results back to its leases.
 * A store reports a failure by completing the stage exceptionally (with {@link dev.distlock.LockUnavailableException}
 * when it has a better message than the engine); it throws only for a request it refuses outright (e.g. an
 * {@link IllegalArgumentException} for a name it cannot store), which reaches the caller unchanged.
 * <p>
 * A store may complete its stages on any thread, typically its client's I/O thread: the engine never blocks in a
 * continuation of a store's stage (it only hands the result to the waiting caller, or sends the {@link #cancel}
 * chained above, which therefore runs on that thread too). In return a store never blocks the calling thread on the
 * network; a store over a blocking client runs its calls on a bounded pool ({@link BlockingCalls}).
 *
 * <h2>Tokens, and what a released name leaves behind</h2>
 * Fencing tokens rise strictly per name, across releases, restarts and force releases, while a released name should
 * leave nothing behind in the store. A store must therefore choose: tokens from the store's clock in µs (kept above
 * the last token while the name exists: {@link StoreTraits.TokenSource#CLOCK}), or a counter that survives the name
 * (a sequence, the store's revision: {@link StoreTraits.TokenSource#COUNTER}), or rows kept per name and swept later.
 * A {@link StoreTraits.TokenSource#CLOCK CLOCK} store has one more duty, the <b>fencing floor on release</b>: the
 * engine may have passed the lease on by local hand-off with tokens above the one the store issued, so on
 * {@link #release} the store takes {@link Lease#fencingToken()} as the floor of the name's next token.
 *
 * <h2>Waiters and fairness</h2>
 * The engine queues this JVM's threads itself, and asks the store for one request per name at a time (several for
 * shared modes). Across JVMs, arrival order is the store's: a store that keeps a server-ordered line (ZooKeeper, etcd)
 * or a waiter list (Redis) serves waiters in arrival order, and {@link dev.distlock.LockType#FAIR} is as fair as that
 * line; a store that polls (JDBC) serves whoever tries first after a release, so FAIR means only the local order
 * there. The engine never hands a FAIR lock on locally.
 * <p>
 * Implementations are thread-safe. Every store passes the same contract test suite (package
 * {@code dev.distlock.test.support.contract} of module {@code distlock-test-support}, run on each store's fixtures);
 * CONTRIBUTING's "Adding a lock store" walks through writing one.
 */
public interface LockStore extends AutoCloseable {

    /**
     * @return what kind of store this is; read once when the engine is built, so it must not change
     */
    StoreTraits traits();

    /**
     * Starts background work (e.g. a subscription to release notifications). Must not fail when the store cannot
     * be reached yet: locking then fails closed per call until it can.
     *
     * @param events where to report releases and lost leases
     */
    void start(StoreEvents events);

    /**
     * One attempt to take the lock, in the request's {@link LockRequest#mode() mode}. Atomic with ownership (the
     * request's owner token), lease and fencing token. Repeating an attempt for the same request is safe: when it
     * already holds the lock it gets the same fencing token again (and its lease anew).
     *
     * @param request the request
     * @param waiting whether the caller queues (tries again after a busy answer, up to a remaining time) or makes
     *        its last try; a store that queues waiters records a {@link Waiting.Queue} caller and leaves nothing
     *        behind for a {@link Waiting.LastTry}
     * @return {@link Attempt.Granted} with a fencing token above every token issued for the name before, or
     *         {@link Attempt.Busy} with when trying again makes sense
     */
    CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting);

    /**
     * Undoes whatever the request holds or registered: its waiter's entry, a hand-over to it, or the lock itself
     * when an attempt granted it but the caller never learned so (its answer came late). Called when the request
     * stops waiting (timeout, interrupt) and after an attempt whose answer the caller did not take. Sent after
     * everything sent before for the same request. Best effort: the engine logs a failure and goes on (a
     * {@link StoreTraits.LeaseKind#SESSION SESSION} store must see it through itself).
     *
     * @param request the request
     * @return completes when the store answered
     */
    CompletionStage<Void> cancel(LockRequest request);

    /**
     * Releases a lease, only if it is still the owner, and lets the next waiter in (and tells
     * {@link StoreEvents#released}, or hands the lock over where the store {@link HandsOver}s). A
     * {@link StoreTraits.TokenSource#CLOCK CLOCK} store takes {@link Lease#fencingToken()} as the floor of the
     * name's next token (see the class comment).
     *
     * @param lease the lease
     * @return {@link ReleaseResult#RELEASED}, or {@link ReleaseResult#EXPIRED} when the lease had already ended
     *         or another owner holds the lock
     */
    CompletionStage<ReleaseResult> release(Lease lease);

    /**
     * Force release, an operator's action ({@code DELETE /actuator/distlock/{name}}): ends the lease of whoever
     * holds the name, on any instance, owner unchecked, and lets the next waiter in as a release does.
     * The next holder's fencing token must be above every token issued for the name before, so the old holder's
     * fenced writes are refused; the old holder learns of the loss at its next renewal, or sooner where the store
     * watches its holders. Queued waiters keep their places.
     *
     * @param name the lock name
     * @return true when somebody held the lock (and no longer does), false when it was free
     */
    CompletionStage<Boolean> forceRelease(String name);

    /**
     * Who holds the name now, whichever instance it is ({@code GET /actuator/distlock/{name}},
     * {@link dev.distlock.LockService#describe}): read from the store, never from this instance's memory. A store
     * keeps {@link LockRequest#holder()} beside the owner token when it grants (and never answers the owner token).
     * A name held in a shared mode is described by one holder: the one whose lease ends last, or, where leases are
     * sessions that the store does not count down, the latest granted; a name handed over to a waiter and not yet
     * taken is described as that waiter's. The waiters are those of the store's line or waiter list
     * (null for a store that keeps none).
     *
     * @param name the lock name
     * @return the holder, or empty when the name is free (an ended lease counts as free)
     */
    CompletionStage<Optional<LockInfo>> describe(String name);

    /**
     * Renews watchdog leases by their request's lease time, each only if it is still the owner. The engine passes
     * at most {@code RENEWAL_BATCH} leases of distinct requests per call, and at most a few calls at a time; a store
     * sends them in as few round trips as it can. Never called on a {@link StoreTraits.LeaseKind#SESSION SESSION} store.
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
