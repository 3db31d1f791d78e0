package dev.distlock.memcached;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import com.spotify.folsom.MemcacheClient;
import dev.distlock.spi.LockStore;
import dev.distlock.test.support.RawCycle;
import dev.distlock.test.support.StoreFixture;
import dev.distlock.test.support.StoreFixtures;

/**
 * The Memcached store's fixture {@code memcached}: one {@code memcached -M} process from the machine's binary
 * ({@link MemcachedTestServer}), every node a store with a Folsom client of its own. Stopping the server freezes it
 * (SIGSTOP), which keeps its items as the contract asks; a restart that empties it is {@link MemcachedRestartTests}'s.
 * Unavailable without a memcached binary.
 */
public final class MemcachedFixtures implements StoreFixture.Provider {

    /** The key prefix of the fixtures' stores. */
    static final String KEY_PREFIX = "fixture";

    @Override
    public List<String> ids() {
        return List.of("memcached");
    }

    @Override
    public StoreFixture.Availability start(String id) {
        if (MemcachedTestServer.binary().isEmpty()) {
            return new StoreFixture.Availability.Unavailable("Memcached", "no memcached binary on this machine "
                    + "(Debian's `memcached`, or `DISTLOCK_MEMCACHED_BIN`)");
        }
        return new StoreFixture.Availability.Ready(new Fixture(MemcachedTestServer.start()));
    }

    /**
     * @param address the server, host:port
     * @param commandTimeout the store's call bound
     * @return the settings of a store on that server with the fixtures' key prefix
     */
    static MemcachedLockConfig config(String address, Duration commandTimeout) {
        return new MemcachedLockConfig(List.of(address), KEY_PREFIX, commandTimeout, false);
    }

    private static final class Fixture implements StoreFixture {

        private final MemcachedTestServer server;

        Fixture(MemcachedTestServer server) {
            this.server = server;
        }

        @Override
        public String id() {
            return "memcached";
        }

        @Override
        public String label() {
            return "Memcached";
        }

        @Override
        public String setup() {
            return server.version() + " (" + MemcachedTestServer.binary().map(Object::toString).orElse("?")
                    + "), one process on loopback, `-M` (evictions off) `-m 64 -t 2`; every node a Folsom "
                    + StoreFixtures.version("com.spotify", "folsom", MemcacheClient.class)
                    + " client of its own (ascii protocol)";
        }

        @Override
        public LockStore newStore(List<AutoCloseable> resources) {
            return MemcachedLockStore.connect(config(server.address(), Duration.ofSeconds(2)));
        }

        /** Frozen, not stopped: a stopped Memcached comes back empty, and the contract's server keeps its data. */
        @Override
        public void stopServer() {
            server.pause();
        }

        @Override
        public void startServer() {
            server.resume();
        }

        @Override
        public void breakLease(String name) {
            server.delete(MemcachedLockStore.key(KEY_PREFIX, name));
        }

        /** Readers are exclusive: an item has one owner. */
        @Override
        public boolean sharesReadLocks() {
            return false;
        }

        @Override
        public Optional<HolderCommand> holder() {
            return Optional.of(new HolderCommand(MemcachedHolderProcess.class, List.of(server.address(), KEY_PREFIX)));
        }

        @Override
        public Optional<RawCycle> rawCycle() {
            return Optional.of(new MemcachedRawCycle(server.address()));
        }

        @Override
        public void close() {
            server.close();
        }
    }
}
