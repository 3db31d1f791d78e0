package dev.distlock.zookeeper;

import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.distlock.LockUnavailableException;
import dev.distlock.spi.LockRequest;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ZooKeeper calls on lock nodes, each bounded by the command timeout ({@link ZooKeeperCalls}): create with a
 * pipelined listing, list, watch a predecessor or a held node, delete.
 */
final class LockNodeCalls {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockStore.class);

    private static final byte[] NO_DATA = new byte[0];

    private final CuratorFramework client;

    private final ZooKeeperCalls calls;

    private final NodeRegistry registry;

    private final String basePath;

    LockNodeCalls(CuratorFramework client, ZooKeeperCalls calls, NodeRegistry registry, String basePath) {
        this.client = client;
        this.calls = calls;
        this.registry = registry;
        this.basePath = basePath;
    }

    /** A new node and, when the pipelined listing already shows it, the lock's children. */
    record Created(LockNode node, @Nullable List<String> children) {
    }

    /**
     * Creates the request's node and, pipelined behind it on the same session (ZooKeeper answers a session's
     * requests in order), lists the lock's children: one round trip in the common case. Curator's protection
     * ({@code _c_<uuid>-} prefix) finds the node again when the create's reply is lost, instead of making a second
     * one that would stand in line for the rest of the session.
     */
    Created create(LockRequest request, long deadline, String what) {
        String lockPath = LockPaths.lockPath(basePath, request.name());
        Stat stat = new Stat();
        CompletableFuture<CuratorEvent> created = calls.send(cb -> client.create().storingStatIn(stat)
                .creatingParentContainersIfNeeded().withProtection().withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                .inBackground(cb).forPath(lockPath + "/" + LockPaths.nodeName(request.shared()), NO_DATA), what);
        CompletableFuture<CuratorEvent> listed = calls.send(cb -> client.getChildren().inBackground(cb)
                .forPath(lockPath), what);
        CuratorEvent event;
        try {
            event = calls.await(created, deadline, what);
        }
        catch (LockUnavailableException ex) {
            // The create may still succeed after we gave up: its node must not stand in line for a session.
            created.thenAccept(late -> {
                if (late.getResultCode() == Code.OK.intValue() && late.getName() != null) {
                    deleteQuietly(late.getName());
                }
            });
            throw ex;
        }
        Stat created2 = event.getStat();
        if (created2 == null || created2.getCzxid() == 0) { // a create recovered by Curator's protection
            created2 = stat(event.getName(), deadline, what);
        }
        LockNode node = new LockNode(request, lockPath, event.getName(), created2.getCzxid(),
                created2.getEphemeralOwner());
        registry.register(node);
        List<String> children = calls.await(listed, deadline, what, Code.NONODE).getChildren();
        // Not listed when the parent had to be made first (or the create was retried): list again then.
        return new Created(node, children != null && children.contains(node.name) ? children : null);
    }

    /** @return the children of the node's lock */
    List<String> list(LockNode node, long deadline, String what) {
        List<String> children = calls.await(calls.send(cb -> client.getChildren().inBackground(cb)
                .forPath(node.lockPath), what), deadline, what, Code.NONODE).getChildren();
        return children != null ? children : List.of();
    }

    /**
     * Watches the node this waiter waits for; its deletion wakes the waiter ({@link NodeRegistry#deleted}).
     * {@code getData} rather than {@code exists}: on a node that is already gone it leaves no watch behind.
     *
     * @return false when the predecessor is already gone
     */
    boolean watchPredecessor(LockNode node, String predecessor, long deadline, String what) {
        registry.waitOn(node, predecessor);
        CuratorEvent event = calls.await(calls.send(cb -> client.getData().usingWatcher(registry).inBackground(cb)
                .forPath(predecessor), what), deadline, what, Code.NONODE);
        if (event.getResultCode() == Code.NONODE.intValue()) {
            registry.stopWaiting(node);
            return false;
        }
        return true;
    }

    private Stat stat(String path, long deadline, String what) {
        Stat stat = calls.await(calls.send(cb -> client.checkExists().inBackground(cb).forPath(path), what),
                deadline, what).getStat();
        if (stat == null) {
            throw new LockUnavailableException("The new lock node vanished at once: cannot " + what);
        }
        return stat;
    }

    /**
     * Watches a held node, so that its deletion behind our back (an operator, data loss) counts as a lost lease.
     * Sent, not awaited: it costs the acquire no time.
     */
    void watchHeld(LockNode node) {
        String path = node.path;
        calls.send(cb -> client.getData().usingWatcher(registry).inBackground(cb).forPath(path), "watch " + path)
                .thenAccept(event -> {
                    if (event.getResultCode() == Code.NONODE.intValue()) {
                        registry.deleted(path);
                    }
                });
    }

    /** @return true when the node was deleted, false when it was already gone */
    boolean delete(String path, long deadline, String what) {
        CuratorEvent event = calls.await(calls.send(cb -> client.delete().guaranteed().inBackground(cb)
                .forPath(path), what), deadline, what, Code.NONODE);
        return event.getResultCode() == Code.OK.intValue();
    }

    /** Deletes a node in the background; Curator keeps trying while the session lives ({@code guaranteed}). */
    void deleteQuietly(String path) {
        calls.send(cb -> client.delete().guaranteed().inBackground(cb).forPath(path), "delete " + path)
                .whenComplete((event, error) -> {
                    if (error != null || (event.getResultCode() != Code.OK.intValue()
                            && event.getResultCode() != Code.NONODE.intValue())) {
                        log.debug("Could not delete lock node {} yet (Curator retries; the session end removes "
                                + "it otherwise)", path, error);
                    }
                });
    }
}
