package dev.distlock.zookeeper;

import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;

import dev.distlock.test.support.RawCycle;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * ZooKeeper's raw cycle, the textbook recipe (ZooKeeper's "Locks" recipe, as Curator's mutex does it): create an
 * ephemeral-sequential node under the name's parent (created as a container when missing), list the parent; the
 * lowest node holds, any other watches the node just before it and lists again once that one is gone; the holder
 * deletes its node. No polling: waiters are woken by the watch. Each node has a Curator client of its own, built by
 * the ZooKeeper store's own {@link ZooKeeperLockStore#newClient} (same session and retry settings), called
 * synchronously.
 */
final class ZooKeeperRawCycle implements RawCycle {

    /** Not the store's base path: the raw nodes never meet distlock's. */
    private static final String BASE = "/raw-cycle";

    private final String connectString;

    /** @param connectString the ensemble */
    ZooKeeperRawCycle(String connectString) {
        this.connectString = connectString;
    }

    @Override
    public String recipe() {
        return "create ephemeral-sequential (parent container created when missing) + list the parent + delete; "
                + "waiters watch their predecessor (Curator, one client per node)";
    }

    @Override
    public Node node() throws Exception {
        CuratorFramework client = ZooKeeperLockStore.newClient(ZooKeeperLockConfig.defaults()
                .withConnectString(connectString));
        client.start();
        try {
            if (!client.blockUntilConnected(30, java.util.concurrent.TimeUnit.SECONDS)) {
                throw new IllegalStateException("not connected to ZooKeeper at " + connectString);
            }
        }
        catch (InterruptedException | RuntimeException ex) {
            client.close();
            throw ex;
        }
        return new Node() {
            @Override
            public Held acquire(String name) throws Exception {
                String parent = BASE + "/" + name;
                String created = client.create().creatingParentContainersIfNeeded()
                        .withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(parent + "/lock-");
                String mine = created.substring(parent.length() + 1);
                while (true) {
                    List<String> line = client.getChildren().forPath(parent);
                    Collections.sort(line); // one prefix, so the order of the sequence numbers
                    int place = line.indexOf(mine);
                    if (place == 0) {
                        return () -> client.delete().forPath(created);
                    }
                    CountDownLatch gone = new CountDownLatch(1);
                    try {
                        // getData, not exists: no watch is left behind on a node already deleted.
                        client.getData().usingWatcher((org.apache.zookeeper.Watcher) event -> gone.countDown())
                                .forPath(parent + "/" + line.get(place - 1));
                        gone.await();
                    }
                    catch (KeeperException.NoNodeException ex) {
                        // the predecessor left between the listing and the watch: list again
                    }
                }
            }

            @Override
            public void close() {
                client.close();
            }
        };
    }
}
