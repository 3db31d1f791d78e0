package dev.distlock.listener;

import java.util.Objects;

import dev.distlock.LockHandle;
import org.jspecify.annotations.Nullable;

/**
 * How one acquisition ended, as the engine tells its {@link LockListener}s.
 *
 * @param name the lock name
 * @param result how it ended
 * @param waitNanos how long it took, in nanoseconds
 * @param handle the handle when {@link AcquireResult#ACQUIRED}, else {@code null}
 * @param error the failure when {@link AcquireResult#ERROR}, else {@code null}
 */
public record AcquireEvent(String name, AcquireResult result, long waitNanos, @Nullable LockHandle handle,
        @Nullable Throwable error) {

    /**
     * Checks that the handle comes with an acquisition and the error with a failure.
     */
    public AcquireEvent {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(result, "result");
        if ((handle != null) != (result == AcquireResult.ACQUIRED)) {
            throw new IllegalArgumentException("An acquisition has a handle, and only an acquisition: " + result);
        }
        if (error != null && result != AcquireResult.ERROR) {
            throw new IllegalArgumentException("Only a failed acquisition has an error: " + result);
        }
    }

    /**
     * @param name the lock name
     * @param waitNanos how long it took
     * @param handle the acquired lock
     * @return an acquisition
     */
    public static AcquireEvent acquired(String name, long waitNanos, LockHandle handle) {
        return new AcquireEvent(name, AcquireResult.ACQUIRED, waitNanos, handle, null);
    }

    /**
     * @param name the lock name
     * @param waitNanos how long it waited
     * @return a wait that ended without the lock
     */
    public static AcquireEvent timedOut(String name, long waitNanos) {
        return new AcquireEvent(name, AcquireResult.TIMEOUT, waitNanos, null, null);
    }

    /**
     * @param name the lock name
     * @param waitNanos how long it took
     * @param error why it failed
     * @return a failed acquisition
     */
    public static AcquireEvent failed(String name, long waitNanos, Throwable error) {
        return new AcquireEvent(name, AcquireResult.ERROR, waitNanos, null, error);
    }
}
