package dev.distlock.spi;

import java.time.Duration;

/**
 * What a store that {@link HandsOver hands over} tells the engine besides {@link StoreEvents}.
 */
public interface HandOverEvents {

    /**
     * A store hand-over: a release handed the lock to a waiter and already issued its fencing token. The lock is that
     * waiter's alone for {@code window} from the hand-over, and its next attempt, or its {@link HandsOver#confirm
     * confirmation}, is granted with exactly this token (and the full lease). So the waiter may start at once, while
     * its confirmation runs; the engine does so only
     * when it can bound the hand-over's start by one of its own refused attempts
     * ({@link Attempt.Busy#refusedAtMicros()}), comparing the store's clock at the refusal with
     * {@code handedAtMicros}. The other waiters of the name try again after the window.
     *
     * @param name the lock name
     * @param handedTo the owner token of the waiter the lock was handed to
     * @param fencingToken that waiter's fencing token
     * @param handedAtMicros the store's clock at the hand-over, in µs: the token may be ahead of it (it is above the
     *        previous holder's, which another master may have issued)
     * @param window how long the hand-over lasts unless that waiter confirms it
     */
    void handedOver(String name, String handedTo, long fencingToken, long handedAtMicros, Duration window);

    /**
     * A release kept the name (or a freed permit) for one waiter for {@code window}, without a token the waiter may
     * start on: that waiter tries at once, the other waiters of the name after the window (if that waiter is gone,
     * they must not wait for their next re-check).
     *
     * @param name the lock name
     * @param keptFor the owner token of the waiter the name is kept for
     * @param window how long the store keeps it
     */
    void kept(String name, String keptFor, Duration window);
}
