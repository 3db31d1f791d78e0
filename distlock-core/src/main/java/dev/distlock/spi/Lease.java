package dev.distlock.spi;

/**
 * A lock a {@link LockStore} granted: what the store is asked to renew and release.
 */
public interface Lease {

    /** @return the request the lock was granted for (name, type, owner token, lease) */
    LockRequest request();

    /**
     * @return the fencing token of the current holder; a store that hands the lock on (see
     *         {@link LockStore#release(Lease)}) passes it on, so the next holder's token is above it
     */
    long fencingToken();
}
