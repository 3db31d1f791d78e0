package dev.distlock.core;

import dev.distlock.spi.LockStore;

/**
 * The steps of a lease's life that its handle and the wait loop ask of a {@link StoreLockService}: whether it
 * still takes locks, the store's local check of a lease, the release of the last hold, and leaving the local queue.
 */
final class ServiceLifecycle implements LeaseLifecycle {

    private final LockStore store;

    private final LocalQueues queues;

    private final LeaseEndings endings;

    private final ServiceShutdown shutdown;

    ServiceLifecycle(LockStore store, LocalQueues queues, LeaseEndings endings, ServiceShutdown shutdown) {
        this.store = store;
        this.queues = queues;
        this.endings = endings;
        this.shutdown = shutdown;
    }

    @Override
    public boolean accepting() {
        return shutdown.accepting();
    }

    @Override
    public boolean storeMayHold(StoreLease lease) {
        return store.isHeld(lease);
    }

    @Override
    public void lastHoldReleased(LeaseHandle handle) {
        endings.release(handle);
    }

    @Override
    public void localHoldEnded(LeaseHandle handle) {
        LocalQueues.Entry entry = handle.lease().localEntry();
        if (!entry.shared()) {
            entry.passTurn();
        }
        leftQueue(entry);
    }

    /** The last one out releases a lease that was left for a local waiter. */
    @Override
    public void leftQueue(LocalQueues.Entry entry) {
        StoreLease left = queues.leave(entry);
        if (left != null) {
            returnToStore(left);
        }
    }

    @Override
    public void returnToStore(StoreLease left) {
        endings.returnToStore(left);
    }
}
