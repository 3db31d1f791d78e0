package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockHandle;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.TestingServer;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.Watcher;
import org.apache.zookeeper.ZooKeeper;
import org.apache.zookeeper.data.ACL;
import org.apache.zookeeper.data.Stat;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A lock's parent node (a container) is made on the way, asynchronously, against a real server. Curator's own
 * {@code creatingParentContainersIfNeeded()} makes missing parents with synchronous calls on its single background
 * thread, so that every caller locking a new name queued behind the others' parent creations there.
 */
class LockParentTests {

    private static final String BASE = "/parent-tests/nested";

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

    @Test
    void newNamesAndAMissingBasePathAreMadeWithoutASynchronousCall() throws Exception {
        AtomicInteger synchronous = new AtomicInteger();
        CuratorFramework client = CuratorFrameworkFactory.builder().connectString(server.getConnectString())
                .sessionTimeoutMs(10_000).retryPolicy(new RetryOneTime(100))
                .zookeeperFactory((connect, session, watcher, readOnly) -> new CountingZooKeeper(connect, session,
                        watcher, synchronous))
                .build();
        client.start();
        assertThat(client.blockUntilConnected(20, TimeUnit.SECONDS)).isTrue();
        ZooKeeperLockConfig config = ZooKeeperServers.config(server.getConnectString(), BASE);
        try (ZooKeeperLockStore store = new ZooKeeperLockStore(client, config);
                StoreLockService service = new StoreLockService(store, LockConfig.defaults()
                        .withWaitTime(Duration.ofSeconds(5)), LockListener.NONE)) {
            service.start();
            long last = 0;
            for (String name : List.of("first", "second", "first")) { // the base path is missing at first
                try (LockHandle handle = service.lock(name)) {
                    assertThat(handle.fencingToken()).isGreaterThan(last);
                    last = handle.fencingToken();
                    assertThat(ZooKeeperServers.lockNodes(admin, BASE, name)).hasSize(1);
                }
            }
            // A parent that went (ZooKeeper deletes empty containers by itself) is made again.
            admin.delete().forPath(LockPaths.lockPath(BASE, "first"));
            try (LockHandle handle = service.lock("first")) {
                assertThat(handle.fencingToken()).isGreaterThan(last);
            }
        }
        finally {
            client.close();
        }
        assertThat(synchronous).as("synchronous ZooKeeper calls (Curator's mkdirs on its background thread)")
                .hasValue(0);
    }

    /** Counts the synchronous calls that making parent nodes uses; the asynchronous ones pass through. */
    private static final class CountingZooKeeper extends ZooKeeper {

        private final AtomicInteger synchronous;

        CountingZooKeeper(String connect, int session, Watcher watcher, AtomicInteger synchronous)
                throws java.io.IOException {
            super(connect, session, watcher);
            this.synchronous = synchronous;
        }

        @Override
        public Stat exists(String path, boolean watch) throws KeeperException, InterruptedException {
            synchronous.incrementAndGet();
            return super.exists(path, watch);
        }

        @Override
        public String create(String path, byte[] data, List<ACL> acl, CreateMode mode)
                throws KeeperException, InterruptedException {
            synchronous.incrementAndGet();
            return super.create(path, data, acl, mode);
        }
    }
}
