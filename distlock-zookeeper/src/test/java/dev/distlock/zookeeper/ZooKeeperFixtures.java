package dev.distlock.zookeeper;

import java.util.List;
import java.util.Optional;

import dev.distlock.spi.LockStore;
import dev.distlock.test.support.RawCycle;
import dev.distlock.test.support.StoreFixture;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;

/**
 * The ZooKeeper store's fixture {@code zookeeper}: one standalone server in this JVM (Curator's
 * {@link TestingServer}) with ZooKeeper's default settings, data in a temporary directory; every node a store with
 * a Curator client of its own and the store's default settings.
 */
public final class ZooKeeperFixtures implements StoreFixture.Provider {

    /** The base path of the fixture's stores. */
    static final String BASE_PATH = "/fixture";

    @Override
    public List<String> ids() {
        return List.of("zookeeper");
    }

    @Override
    public StoreFixture.Availability start(String id) throws Exception {
        return new StoreFixture.Availability.Ready(new Fixture(new TestingServer(true)));
    }

    private static final class Fixture implements StoreFixture {

        private final TestingServer server;

        private CuratorFramework admin;

        Fixture(TestingServer server) {
            this.server = server;
        }

        @Override
        public String id() {
            return "zookeeper";
        }

        @Override
        public String label() {
            return "ZooKeeper (1 server)";
        }

        @Override
        public String setup() {
            String forceSync = System.getProperty("zookeeper.forceSync", "yes");
            return "ZooKeeper " + org.apache.zookeeper.Version.getFullVersion().replaceAll("[-, ].*", "")
                    + ", one standalone server in the harness's JVM (Curator `TestingServer`), data in a temporary "
                    + "directory under " + System.getProperty("java.io.tmpdir") + ", `zookeeper.forceSync="
                    + forceSync + "`" + ("no".equals(forceSync) ? ""
                            : " (the transaction log is fsynced before every write is answered)");
        }

        @Override
        public LockStore newStore(List<AutoCloseable> resources) {
            return ZooKeeperLockStore.connect(ZooKeeperLockConfig.defaults()
                    .withConnectString(server.getConnectString()).withBasePath(BASE_PATH));
        }

        @Override
        public void stopServer() {
            try {
                server.stop();
            }
            catch (Exception ex) {
                throw new IllegalStateException("Could not stop the ZooKeeper server", ex);
            }
        }

        @Override
        public void startServer() {
            try {
                server.restart();
            }
            catch (Exception ex) {
                throw new IllegalStateException("Could not restart the ZooKeeper server", ex);
            }
        }

        @Override
        public synchronized void breakLease(String name) {
            if (admin == null) {
                admin = ZooKeeperServers.admin(server.getConnectString());
            }
            ZooKeeperServers.deleteLockNodes(admin, BASE_PATH, name);
        }

        /** The line: the other nodes (keys) of the name. */
        @Override
        public boolean countsWaiters() {
            return true;
        }

        @Override
        public Optional<HolderCommand> holder() {
            return Optional.of(new HolderCommand(ZooKeeperHolderProcess.class,
                    List.of(server.getConnectString(), BASE_PATH)));
        }

        @Override
        public Optional<RawCycle> rawCycle() {
            return Optional.of(new ZooKeeperRawCycle(server.getConnectString()));
        }

        @Override
        public synchronized void close() {
            if (admin != null) {
                admin.close();
            }
            try {
                server.close();
            }
            catch (Exception ex) {
                throw new IllegalStateException("Could not stop the ZooKeeper server", ex);
            }
        }
    }
}
