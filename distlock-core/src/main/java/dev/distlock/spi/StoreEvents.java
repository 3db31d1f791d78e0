package dev.distlock.spi;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link LockStore} tells the engine as it happens, so that waiting threads wake up at once instead of on
 * their next re-check.
 */
public interface StoreEvents {

    /**
     * Events nobody listens to: for a store started by something other than the engine, e.g. a node of a
     * {@link dev.distlock.quorum.QuorumLockStore}, which nobody queues on.
     */
    StoreEvents NONE = new StoreEvents() {

        @Override
        public void released(String name, @Nullable String handedTo, long handOverMillis) {
        }

        @Override
        public void leaseLost(String ownerToken) {
        }
    };

    /**
     * A lock was released somewhere (on any node).
     *
     * @param name the lock name
     * @param handedTo the owner token of the waiter the store handed the lock to, or {@code null} when it is
     *        simply free: that waiter should try at once, the others after the store hand-over's window
     * @param handOverMillis how long the store keeps the lock for {@code handedTo}
     */
    void released(String name, @Nullable String handedTo, long handOverMillis);

    /**
     * A store hand-over: a release handed the lock to a waiter and already issued its fencing token. The lock is that
     * waiter's alone for {@code handOverMillis} from the hand-over, and its next attempt is granted with exactly this
     * token (and the full lease). So the waiter may start at once, while that attempt confirms it; the engine does so
     * only when it can bound the hand-over's start by one of its own refused attempts (see
     * {@link Attempt#refusedAtToken()}), comparing the store's clock at the refusal with {@code handedAtMicros}.
     * Like {@link #released}, it wakes the other waiters of the name after the window. A store that tells this
     * releases and cancels a hand-over by its waiter's owner token as it does a lock, since the waiter may release
     * before its confirmation ran (a confirmation that then comes too late is refused, or undone). By default it is
     * told as {@link #released}.
     *
     * @param name the lock name
     * @param handedTo the owner token of the waiter the lock was handed to
     * @param fencingToken that waiter's fencing token
     * @param handedAtMicros the store's clock at the hand-over, in µs: the token may be ahead of it (it is above the
     *        previous holder's, which another master may have issued)
     * @param handOverMillis how long the hand-over lasts unless that waiter confirms it
     */
    default void handedOver(String name, String handedTo, long fencingToken, long handedAtMicros,
            long handOverMillis) {
        released(name, handedTo, handOverMillis);
    }

    /**
     * The store knows that a lease it granted is gone (e.g. the session that held it ended).
     *
     * @param ownerToken the owner token of the lost lease
     */
    void leaseLost(String ownerToken);
}
