package dev.distlock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.distlock.LockInfo;
import dev.distlock.spi.line.LineHolders;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException.Code;

/**
 * Who holds a lock in ZooKeeper ({@link dev.distlock.spi.LockStore#describe}): the lock's children are its line;
 * the holder described ({@link LineHolders#describing}) is read with {@code getData}: its data is the holder
 * identity (written when the node was created), its creation zxid the fencing token. The lease is the holder's
 * session, which ZooKeeper does not count down: the lease remaining told is the session timeout, how long the lock
 * outlives a holder that died (this client's negotiated timeout: the
 * ensemble gives its clients about the same). The waiters are the other nodes of the line.
 */
final class ZooKeeperDescriptions {

    /** A holder's node may go between the listing and the read: list again, this often at most. */
    private static final int READS = 3;

    private final CuratorFramework client;

    private final ZooKeeperCalls calls;

    private final LockNodeCalls nodes;

    /** The session timeout when none was negotiated yet. */
    private final Duration configuredTimeout;

    ZooKeeperDescriptions(CuratorFramework client, ZooKeeperCalls calls, LockNodeCalls nodes,
            Duration configuredTimeout) {
        this.client = client;
        this.calls = calls;
        this.nodes = nodes;
        this.configuredTimeout = configuredTimeout;
    }

    /** Every session of the ensemble is given about the same timeout: this client's stands for the holder's. */
    private Duration sessionTimeout() {
        int negotiated = client.getZookeeperClient().getLastNegotiatedSessionTimeoutMs();
        return negotiated > 0 ? Duration.ofMillis(negotiated) : configuredTimeout;
    }

    /** @return the holder of the lock at the path, or empty when nobody holds it */
    CompletableFuture<Optional<LockInfo>> describe(String name, String lockPath) {
        return describe(name, lockPath, READS);
    }

    private CompletableFuture<Optional<LockInfo>> describe(String name, String lockPath, int reads) {
        String what = "describe '" + name + "'";
        return nodes.list(lockPath, what).thenCompose(children -> {
            Optional<LineHolders.Described<String>> described = LineHolders.describing(LockPaths.line(children));
            if (described.isEmpty()) {
                return CompletableFuture.completedFuture(Optional.<LockInfo>empty());
            }
            String path = lockPath + "/" + described.get().holder().id();
            return calls.send(cb -> client.getData().inBackground(cb).forPath(path), what, Code.NONODE)
                    .thenCompose(event -> {
                        if (event.getResultCode() == Code.NONODE.intValue()) { // it left meanwhile: look again
                            return reads > 1 ? describe(name, lockPath, reads - 1)
                                    : CompletableFuture.completedFuture(Optional.<LockInfo>empty());
                        }
                        byte[] data = event.getData();
                        String holder = data == null || data.length == 0 ? LockInfo.UNKNOWN_HOLDER
                                : new String(data, StandardCharsets.UTF_8);
                        return CompletableFuture.completedFuture(Optional.of(new LockInfo(name, holder,
                                event.getStat().getCzxid(), sessionTimeout(), described.get().waiters())));
                    });
        });
    }
}
