package dev.distlock.test.support;

import java.time.Duration;
import java.util.List;

import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.quorum.QuorumConfig;
import dev.distlock.quorum.QuorumLockStore;
import dev.distlock.spi.LockStore;

/**
 * A quorum over three in-memory stores passes the same contract as a single store. "Down" is an outage of every
 * node; a broken lease is forgotten by every node.
 */
class QuorumOfInMemoryStoresContractTests extends LockStoreContractTests {

    private final List<InMemoryLockStore> shared = List.of(new InMemoryLockStore(), new InMemoryLockStore(),
            new InMemoryLockStore());

    @Override
    protected LockStore newStore() {
        List<LockStore> nodes = shared.stream().map(InMemoryLockStore::connect).toList();
        return new QuorumLockStore(new QuorumConfig(nodes, config().commandTimeout()));
    }

    @Override
    protected void stopStore() {
        shared.forEach(InMemoryLockStore::makeUnavailable);
    }

    @Override
    protected void startStore() {
        shared.forEach(InMemoryLockStore::makeAvailable);
    }

    @Override
    protected void breakLease(String name) {
        shared.forEach(store -> store.forget(name));
    }
}
