package dev.distlock;

import java.time.Duration;

/**
 * A lock acquisition. Ownership belongs to the acquisition (an unguessable token), not to a thread: a handle may
 * be released from another thread than the one that acquired it.
 */
public interface LockHandle extends AutoCloseable {

    /** @return the full lock name, as passed to {@link LockService} */
    String name();

    /**
     * The fencing token of this acquisition: strictly increasing per lock name across successive holders.
     * Pass it to the resource you protect and let it refuse a token lower than the last one it saw, so a holder
     * whose lease was lost cannot overwrite the work of a newer holder.
     *
     * @return the fencing token
     */
    long fencingToken();

    /** @return false after release, and as soon as the lease is known to be lost */
    boolean isHeld();

    /**
     * How long this holder can still count on the lock: the lease's deadline as this JVM knows it (measured from
     * before the request that granted or last renewed the lease was sent) less the margin for clock drift between
     * this JVM and the store, so the store cannot have let the lease go before. A watchdog lease's deadline moves on
     * with each renewal; a fixed lease's does not. Zero once {@link #isHeld()} is false. On a store whose leases end
     * with its session (ZooKeeper, etcd), a watchdog lease has no deadline of its own: it lasts until the store
     * reports the session lost, and this gives the lease time ({@code distlock.lease-time}) as the horizon.
     * <p>
     * Check it before a step that must finish under the lock (a write, a call with a timeout): a step that takes
     * longer than what is left may run after another holder took the lock, so pass the {@link #fencingToken()}
     * along as well.
     *
     * @return the safe remaining time, never negative
     */
    Duration remaining();

    /**
     * @return what this acquisition does when its lease is lost: its options' policy, else
     *         {@code distlock.on-lease-lost}; {@link OnLeaseLost#LOG} for a handle of a service without the engine
     */
    default OnLeaseLost onLeaseLost() {
        return OnLeaseLost.LOG;
    }

    /**
     * Has the action run once when this handle's lease is found lost while it holds it: at once, on the registering
     * thread, when the loss was found already. It runs on the thread that found the loss (the lease scheduler's, or
     * the store's), so it must be quick and must not block: interrupt a thread, cancel a task, hand over to an
     * executor. Scopes of {@link OnLeaseLost#INTERRUPT} use it to stop their work.
     *
     * @param action what stops the work
     * @return the watch, to be ended when the work ended; a handle of a service without the engine never runs the
     *         action
     */
    default LossWatch whenLost(Runnable action) {
        return () -> false;
    }

    /**
     * Releases the lock. Idempotent. Returns once the store confirmed the release, so another node can take the
     * lock at once. A release that the store could not confirm, or of a lease that already expired, is logged and
     * counted but not thrown; when the lease was lost while held and {@link #onLeaseLost()} is
     * {@link OnLeaseLost#THROW} or {@link OnLeaseLost#INTERRUPT}, a {@link LeaseLostException} is thrown.
     */
    void unlock();

    /** Same as {@link #unlock()}. */
    @Override
    default void close() {
        unlock();
    }

    /** A {@link #whenLost(Runnable) loss watch}: the action runs at most once, and never after it was ended. */
    @FunctionalInterface
    interface LossWatch {

        /**
         * Stops watching: the action does not run from now on. When it is running, this waits until it has
         * returned, so that whatever it stops (a thread) is stopped before the caller goes on.
         *
         * @return whether the action ran
         */
        boolean end();
    }
}
