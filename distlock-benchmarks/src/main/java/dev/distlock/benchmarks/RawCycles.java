package dev.distlock.benchmarks;

import java.util.Optional;

import dev.distlock.test.support.RawCycle;
import dev.distlock.test.support.StoreFixture;

/**
 * Finds a started store's raw cycle (workload R): the harness's own for the reference Redis, else the one its fixture
 * offers ({@link StoreFixture#rawCycle()}, in the store's test-jar, on the store's client library), so that no
 * benchmark code names another store.
 */
final class RawCycles {

    private RawCycles() {
    }

    /**
     * @param store a started store of workload S
     * @param redis the harness's Redis, the reference store
     * @return the store's raw cycle; empty for a set-up that has none (replicas, Redlock)
     */
    static Optional<RawCycle> of(StoreUnderTest store, RedisTarget redis) {
        if (Stores.REFERENCE.equals(store.id())) {
            return Optional.of(new RedisRawCycle(redis));
        }
        return store.fixture().flatMap(StoreFixture::rawCycle);
    }
}
