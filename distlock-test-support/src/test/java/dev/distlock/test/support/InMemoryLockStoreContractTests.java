package dev.distlock.test.support;

import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.LockStore;

/**
 * The in-memory store passes the same contract as the real stores; "down" is a simulated outage.
 */
class InMemoryLockStoreContractTests extends LockStoreContractTests {

    private final InMemoryLockStore shared = new InMemoryLockStore();

    @Override
    protected LockStore newStore() {
        return shared.connect();
    }

    @Override
    protected void stopStore() {
        shared.makeUnavailable();
    }

    @Override
    protected void startStore() {
        shared.makeAvailable();
    }

    @Override
    protected void breakLease(String name) {
        shared.forget(name);
    }
}
