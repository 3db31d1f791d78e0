package dev.distlock.core;

/**
 * What a {@link LeaseHandle} and the wait loop ({@link StoreAcquirer}) need from the service that issued them: the
 * few steps of a lease's life that the service owns, and nothing else of it. Keeps the handle and the wait loop
 * from depending on the whole {@link StoreLockService} (and the service, the wait loop and the handle from
 * depending on one another in a cycle).
 */
interface LeaseLifecycle {

    /** @return whether new acquisitions are taken: false from the start of the shutdown */
    boolean accepting();

    /**
     * @param lease a lease this service holds
     * @return false when the store already knows that the lease may be gone; a local check, no round trip
     */
    boolean storeMayHold(StoreLease lease);

    /** The last hold of the handle was released: release the lock (in the store, or to the next local thread). */
    void lastHoldReleased(LeaseHandle handle);

    /** The handle's lease ended here, however: the next thread of this JVM may compete for the lock. */
    void localHoldEnded(LeaseHandle handle);

    /** A thread that joined the name's local queue leaves it without the lock. */
    void leftQueue(LocalQueues.Entry entry);

    /** A lease that a local hand-off left and nobody took (or could use) goes back to the store. */
    void returnToStore(StoreLease left);
}
