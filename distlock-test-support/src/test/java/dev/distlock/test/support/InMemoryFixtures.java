package dev.distlock.test.support;

import java.util.List;
import java.util.function.Consumer;
import java.util.stream.Stream;

import dev.distlock.core.LockConfig;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.quorum.QuorumConfig;
import dev.distlock.quorum.QuorumLockStore;
import dev.distlock.spi.LockStore;

/**
 * The in-memory store's fixtures, for the contract suite only (in this module's tests, so that no store module
 * runs them): {@code in-memory} (one shared in-memory store, "down" a simulated outage) and
 * {@code in-memory-quorum} (a quorum over three of them: "down" is an outage of every one, a broken lease is
 * forgotten by every one). Workloads list none ({@link #ids()} is empty): there is no server to measure.
 */
public final class InMemoryFixtures implements StoreFixture.Provider {

    @Override
    public List<String> ids() {
        return List.of();
    }

    @Override
    public List<String> contractIds() {
        return List.of("in-memory", "in-memory-quorum");
    }

    @Override
    public StoreFixture.Availability start(String id) {
        int size = "in-memory".equals(id) ? 1 : 3;
        List<InMemoryLockStore> shared = Stream.generate(InMemoryLockStore::new).limit(size)
                .toList();
        return new StoreFixture.Availability.Ready(new Fixture(id, shared));
    }

    /**
     * @param id the fixture's id
     * @param shared the stores every node connects to
     */
    private record Fixture(String id, List<InMemoryLockStore> shared) implements StoreFixture {

        /** A quorum tells the highest token of its majority (QuorumDescription). */
        @Override
        public boolean describesExactTokens() {
            return shared.size() == 1;
        }

        @Override
        public String label() {
            return shared.size() == 1 ? "in-memory" : "quorum of " + shared.size() + " in-memory stores";
        }

        @Override
        public String setup() {
            return label() + " in the test's JVM";
        }

        @Override
        public LockStore newStore(List<AutoCloseable> resources) {
            if (shared.size() == 1) {
                return shared.get(0).connect();
            }
            List<LockStore> nodes = shared.stream().map(InMemoryLockStore::connect).toList();
            return new QuorumLockStore(new QuorumConfig(nodes, LockConfig.defaults().commandTimeout()));
        }

        @Override
        public void stopServer() {
            each(InMemoryLockStore::makeUnavailable);
        }

        @Override
        public void startServer() {
            each(InMemoryLockStore::makeAvailable);
        }

        @Override
        public void breakLease(String name) {
            each(store -> store.forget(name));
        }

        private void each(Consumer<InMemoryLockStore> action) {
            shared.forEach(action);
        }

        @Override
        public void close() {
            // nothing runs outside this JVM
        }
    }
}
