package dev.distlock.test.support.contract;

import dev.distlock.test.support.StoreFixture;
import dev.distlock.test.support.StoreFixtures;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * One fixture of the contract run, started when its first test needs it (so that a class filtered out by
 * {@code -Dtest} starts no server) and shared by every contract class of the run. A fixture this machine cannot
 * run (a server binary missing) skips its tests, visibly, with the reason.
 */
public final class ContractStore {

    private final String id;

    private final ExtensionContext.Store shared;

    ContractStore(String id, ExtensionContext.Store shared) {
        this.id = id;
        this.shared = shared;
    }

    /** @return the fixture's id */
    public String id() {
        return id;
    }

    /** @return the started fixture; aborts the calling test where this machine cannot run it */
    public StoreFixture fixture() {
        Started started = shared.computeIfAbsent(id, ContractStore::start, Started.class);
        if (started.availability() instanceof StoreFixture.Availability.Unavailable unavailable) {
            Assumptions.abort(unavailable.label() + " cannot run here: " + unavailable.reason());
        }
        return ((StoreFixture.Availability.Ready) started.availability()).fixture();
    }

    private static Started start(String id) {
        try {
            return new Started(StoreFixtures.start(id));
        }
        catch (Exception ex) {
            throw new IllegalStateException("Could not start the store fixture " + id, ex);
        }
    }

    @Override
    public String toString() {
        return id;
    }

    /**
     * A fixture as the run's store keeps it: closed (its servers stopped) when the run ends.
     *
     * @param availability what starting it gave
     */
    private record Started(StoreFixture.Availability availability) implements AutoCloseable {

        @Override
        public void close() {
            if (availability instanceof StoreFixture.Availability.Ready ready) {
                ready.fixture().close();
            }
        }
    }
}
