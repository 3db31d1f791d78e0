package dev.distlock.zookeeper;

import java.time.Duration;

import dev.distlock.spi.LockStore;
import dev.distlock.test.support.LockStoreContractTests;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract against one real ZooKeeper server, every node on a Curator client (and session) of its own.
 */
class ZooKeeperLockStoreContractTests extends LockStoreContractTests {

    private static final String BASE_PATH = "/contract";

    static TestingServer server;

    static CuratorFramework admin;

    @BeforeAll
    static void startZooKeeper() {
        server = ZooKeeperServers.server();
        admin = ZooKeeperServers.admin(server.getConnectString());
    }

    @AfterAll
    static void stopZooKeeper() throws Exception {
        admin.close();
        server.close();
    }

    @Override
    protected LockStore newStore() {
        // A 5 s command timeout: after startStore() a client may take a few seconds to reconnect on a busy
        // machine, and the contract's first lock call then must wait for it rather than fail closed.
        return ZooKeeperLockStore.connect(ZooKeeperServers.config(server.getConnectString(), BASE_PATH)
                .withCommandTimeout(Duration.ofSeconds(5)));
    }

    @Override
    protected void stopStore() {
        try {
            server.stop();
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    @Override
    protected void startStore() {
        try {
            server.restart();
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    @Override
    protected void breakLease(String name) {
        ZooKeeperServers.deleteLockNodes(admin, BASE_PATH, name);
    }
}
