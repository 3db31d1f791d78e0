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
     * Releases the lock. Idempotent. Returns once the store confirmed the release, so another node can take the
     * lock at once. A release that the store could not confirm, or of a lease that already expired, is logged and
     * counted but not thrown; when the lease was lost while held and {@code distlock.on-lease-lost=throw}, a
     * {@link LeaseLostException} is thrown.
     */
    void unlock();

    /** Same as {@link #unlock()}. */
    @Override
    default void close() {
        unlock();
    }
}
