package dev.distlock.spi;

import org.jspecify.annotations.Nullable;

/**
 * What a {@link LockStore} tells the engine as it happens, so that waiting threads wake up at once instead of on
 * their next re-check.
 * <p>
 * Notifications are an optimisation, never a duty: a waiter that hears nothing tries again after the
 * {@link Attempt.Busy#retryAfter() retry-after} of its last busy answer, and at most 500 ms after it (a
 * notification may be lost while the store reconnects). A store without notifications is correct, only slower to
 * hand a freed lock on. Events may come on any thread, including the store's I/O thread: the engine only wakes threads
 * and never blocks in them.
 */
public interface StoreEvents {

    /**
     * Events nobody listens to: for a store started by something other than the engine, or before it starts one.
     */
    StoreEvents NONE = new StoreEvents() {

        @Override
        public void released(String name, @Nullable String next) {
        }

        @Override
        public void leaseLost(String ownerToken) {
        }
    };

    /**
     * A lock was released somewhere (on any node), or a place in its line freed: its waiters on this JVM try again
     * now.
     *
     * @param name the lock name
     * @param next the owner token of the waiter whose turn it is in the store's line (it tries at once, the others
     *        of the name a moment later), or {@code null} when every waiter of the name should try now
     */
    void released(String name, @Nullable String next);

    /**
     * The store knows that a lease it granted is gone (e.g. the session that held it ended).
     *
     * @param ownerToken the owner token of the lost lease
     */
    void leaseLost(String ownerToken);
}
