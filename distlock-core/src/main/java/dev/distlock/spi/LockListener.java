package dev.distlock.spi;

import dev.distlock.LockHandle;
import org.jspecify.annotations.Nullable;

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
     * An acquisition starts.
     *
     * @param name the lock name
     * @return any context object, handed back to {@link #acquireFinished}; may be {@code null}
     */
    default @Nullable Object acquireStarted(String name) {
        return null;
    }

    /**
     * An acquisition ended.
     *
     * @param name the lock name
     * @param context what {@link #acquireStarted} returned
     * @param result how it ended
     * @param waitNanos how long it took
     * @param handle the handle when acquired, else {@code null}
     * @param error the failure when {@link AcquireResult#ERROR}, else {@code null}
     */
    default void acquireFinished(String name, @Nullable Object context, AcquireResult result, long waitNanos,
            @Nullable LockHandle handle, @Nullable Throwable error) {
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
}
