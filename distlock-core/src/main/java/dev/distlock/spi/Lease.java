package dev.distlock.spi;

/**
 * A lock a {@link LockStore} granted: what the store is asked to renew and release.
 */
public interface Lease {

    /** @return the request the lock was granted for (name, type, owner token, lease) */
    LockRequest request();

    /**
     * @return the fencing token of the current holder. For a {@link StoreTraits.TokenSource#CLOCK CLOCK} store it may
     *         be above the token the store issued (the engine passed the lease on by local hand-off): on
     *         {@link LockStore#release(Lease)} the store keeps it as the floor of the name's next token. For a
     *         {@link StoreTraits.TokenSource#COUNTER COUNTER} store it is the token the store issued, and may serve
     *         as the lease's identity (etcd's create revision)
     */
    long fencingToken();
}
