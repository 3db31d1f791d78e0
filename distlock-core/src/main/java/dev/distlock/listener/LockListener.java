package dev.distlock.listener;

import dev.distlock.LockHandle;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;

/**
 * Callbacks of the lock engine, for metrics, tracing and logging. Every method has a no-op default. The engine
 * calls listeners on its hot path and on the watchdog thread: implementations must be fast and must not block.
 * An exception thrown by a listener is logged and never breaks locking.
 * <p>
 * Only outermost acquisitions and releases are reported: a reentrant acquisition does not touch the store and is not
 * an event.
 */
public interface LockListener {

    /** A listener that does nothing. */
    LockListener NONE = new LockListener() {
    };

    /**
     * An acquisition starts. Listeners that need something from the start to the end of one acquisition (a
     * tracing span) return an {@link Acquisition} holding it; the others need only {@link #acquireFinished}.
     *
     * @param name the lock name
     * @return what to tell when this acquisition ends; by default {@link #acquireFinished}
     */
    default Acquisition acquireStarted(String name) {
        return this::acquireFinished;
    }

    /**
     * An acquisition ended (called by the default {@link #acquireStarted}'s {@link Acquisition}).
     *
     * @param event how it ended
     */
    default void acquireFinished(AcquireEvent event) {
    }

    /**
     * A lock was released in the store (or the release was attempted).
     *
     * @param handle the released handle
     * @param result how the release ended
     */
    default void released(LockHandle handle, ReleaseResult result) {
    }

    /**
     * A fixed lease ran out before the lock was unlocked: the lock is no longer held. A later unlock is reported
     * through {@link #released} with {@link ReleaseResult#EXPIRED}.
     *
     * @param handle the handle, now not held
     */
    default void expired(LockHandle handle) {
    }

    /**
     * The lease of a held lock was found lost while held.
     *
     * @param handle the handle, now not held
     */
    default void leaseLost(LockHandle handle) {
    }

    /**
     * Watchdog renewals ended.
     *
     * @param result the outcome
     * @param locks how many leases had that outcome
     */
    default void renewed(RenewalResult result, int locks) {
    }

    /**
     * A leadership campaign of this instance started (not leader yet), became leader, stopped being leader, or
     * ended ({@code leader} false, {@code campaigning} false).
     *
     * @param group the group
     * @param leader whether this instance leads the group now
     * @param campaigning whether the campaign goes on
     */
    default void leadershipChanged(String group, boolean leader, boolean campaigning) {
    }

    /**
     * One acquisition in progress, told once how it ended.
     */
    @FunctionalInterface
    interface Acquisition {

        /**
         * @param event how the acquisition ended
         */
        void finished(AcquireEvent event);
    }
}
