package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;

import dev.distlock.spi.LockStore;
import dev.distlock.test.support.StoreFixture;

/**
 * One lock store of workload S, started once for the run. Every application node of a measurement gets a
 * {@link LockStore} of its own (its own connections), made by {@link #newNode()}; what those nodes opened besides
 * the store (connection factories, pools) is closed by {@link #closeNodes()} after the measurement, so that no
 * measurement inherits the previous one's connections.
 */
final class StoreUnderTest implements AutoCloseable {

    private final String id;

    private final String name;

    private final String setup;

    private final Function<List<AutoCloseable>, LockStore> nodes;

    private final List<AutoCloseable> servers;

    private final Optional<StoreFixture> fixture;

    private final List<AutoCloseable> nodeResources = new ArrayList<>();

    /**
     * @param id the id of {@code --stores}
     * @param name the label in the report
     * @param setup what runs where, for the report
     * @param nodes makes one node's store, adding what must be closed after the measurement to the list
     * @param servers what to stop at the end of the run, in this order
     * @param fixture the store's fixture, where a store module's fixture started it (not the harness's Redis)
     */
    StoreUnderTest(String id, String name, String setup, Function<List<AutoCloseable>, LockStore> nodes,
            List<AutoCloseable> servers, Optional<StoreFixture> fixture) {
        this.id = id;
        this.name = name;
        this.setup = setup;
        this.nodes = nodes;
        this.servers = servers;
        this.fixture = fixture;
    }

    String id() {
        return id;
    }

    String name() {
        return name;
    }

    String setup() {
        return setup;
    }

    /** @return the fixture that started the store, for the raw cycles (R), which reach its server themselves */
    Optional<StoreFixture> fixture() {
        return fixture;
    }

    /** @return a new store for one application node; the lock service that uses it closes it */
    synchronized LockStore newNode() {
        return nodes.apply(nodeResources);
    }

    /** Closes the connection factories and pools of the nodes made since the last call. */
    synchronized void closeNodes() {
        for (AutoCloseable resource : nodeResources) {
            closeQuietly(resource);
        }
        nodeResources.clear();
    }

    @Override
    public void close() {
        closeNodes();
        servers.forEach(StoreUnderTest::closeQuietly);
    }

    private static void closeQuietly(AutoCloseable resource) {
        try {
            resource.close();
        }
        catch (Exception ex) {
            System.err.println("  could not close " + resource + ": " + ex);
        }
    }
}
