package dev.distlock;

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
