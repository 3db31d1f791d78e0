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
        public void released(String name, @Nullable String handedTo, long reservedMillis) {
        }

        @Override
        public void leaseLost(String ownerToken) {
        }
    };

    /**
     * A lock was released somewhere (on any node).
     *
     * @param name the lock name
     * @param handedTo the owner token of the waiter the store reserved the lock for, or {@code null} when it is
     *        simply free: that waiter should try at once, the others after the reservation ends
     * @param reservedMillis how long the reservation for {@code handedTo} lasts
     */
    void released(String name, @Nullable String handedTo, long reservedMillis);

    /**
     * A release handed the lock to a waiter and already issued its fencing token: the lock is that waiter's alone for
     * {@code reservedMillis} from the release, and its next attempt is granted with exactly this token (and the full
     * lease). So the waiter may start at once, while that attempt confirms it; the engine does so only when it can
     * bound the hand-over's start by one of its own refused attempts (see {@link Attempt#refusedAtToken()}).
     * Like {@link #released}, it wakes the other waiters of the name after the window. A store that tells this
     * releases and cancels a hand-over by its waiter's owner token as it does a lock, since the waiter may release
     * before its confirmation ran (a confirmation that then comes too late is refused, or undone). By default it is
     * told as {@link #released}.
     *
     * @param name the lock name
     * @param handedTo the owner token of the waiter the lock was handed to
     * @param fencingToken that waiter's fencing token
     * @param reservedMillis how long the hand-over lasts unless that waiter confirms it
     */
    default void handedOver(String name, String handedTo, long fencingToken, long reservedMillis) {
        released(name, handedTo, reservedMillis);
    }

    /**
     * The store knows that a lease it granted is gone (e.g. the session that held it ended).
     *
     * @param ownerToken the owner token of the lost lease
     */
    void leaseLost(String ownerToken);
}
