package dev.distlock.spi;

import java.util.concurrent.CompletionStage;

/**
 * An optional capability of a {@link LockStore}: the store hand-over. A release (or a cancel, or a force release)
 * grants the lock to the store's longest waiter at once, issues its fencing token and keeps the lock for it for a
 * window, and tells the engine ({@link HandOverEvents}); the waiter may then start before its next attempt confirms
 * the grant. Only the Redis store does this; every other store just frees the name and tells
 * {@link StoreEvents#released}.
 * <p>
 * The engine checks for this interface once, when it is built, and then calls {@link #startHandOvers} once, before
 * {@link LockStore#start}. A store that hands over also:
 * <ul>
 * <li>answers a refusal with {@link Attempt.Busy#refusedAtMicros()} (its clock at the refusal), so that the engine can
 * tell a fresh hand-over from one issued before the refusal;</li>
 * <li>grants the waiter's confirmation ({@link #confirm}) with exactly the handed-over token and the full lease;</li>
 * <li>releases and cancels a handed-over lock by its waiter's owner token as it does a held one, since the waiter may
 * release before its confirmation ran (a confirmation that then comes too late is refused, or undone).</li>
 * </ul>
 * A {@link ForwardingLockStore} forwards the capability to its delegate when the delegate has it.
 */
public interface HandsOver {

    /**
     * @param events where to tell hand-overs; called once, before {@link LockStore#start}
     */
    void startHandOvers(HandOverEvents events);

    /**
     * Confirms a hand-over to the request: grants the lock with exactly the handed-over token and the full lease while
     * it is still handed to the request (or held by it: the answer to a confirmation sent again), and otherwise takes
     * nothing, neither the lock nor a place in the line. It may run after the request's release (the waiter started
     * on the hand-over and finished before its confirmation ran): a fresh grant then would hold a free name for a
     * whole lease unless the engine's undo came.
     *
     * @param request the request the lock was handed to
     * @return completes with {@link Attempt.Granted} (the handed-over token) or {@link Attempt.Busy}; exceptionally
     *         when the store failed (the engine then undoes whatever the call may have taken)
     */
    CompletionStage<Attempt> confirm(LockRequest request);
}
