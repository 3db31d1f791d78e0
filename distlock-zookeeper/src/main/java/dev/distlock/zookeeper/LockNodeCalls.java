package dev.distlock.zookeeper;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;

import dev.distlock.LockUnavailableException;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.line.LineDriver;
import dev.distlock.spi.line.LinePlace;
import dev.distlock.spi.line.LinePosition;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.api.CuratorEvent;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException.Code;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The ZooKeeper calls on lock nodes, each answering a stage ({@link ZooKeeperCalls}): create with a pipelined
 * listing, list, watch a predecessor, a permit waiter's line or a held node, delete. They drive the line
 * ({@link LineDriver}): a node is an entry, its sequence orders the line, its creation zxid is the fencing token.
 */
final class LockNodeCalls implements LineDriver<LockNode, String> {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockStore.class);

    /** How often a request makes its lock's parent before giving up: it only goes again when emptied meanwhile. */
    private static final int MAX_PARENT_TRIES = 5;

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

    /**
     * Creates the request's node and, pipelined behind it on the same session (ZooKeeper answers a session's
     * requests in order), lists the lock's children: one round trip in the common case. Curator's protection
     * ({@code _c_<uuid>-} prefix) finds the node again when the create's reply is lost, instead of making a second
     * one that would stand in line for the rest of the session. The node is registered as soon as it exists, so that
     * a cancel (also the engine's undo of an attempt whose answer came late) finds and deletes it.
     * <p>
     * A new name has no parent node yet: the create answers {@code NONODE} and is sent again behind the parent's
     * ({@link #join(LockRequest, String, String, int)}). Not Curator's {@code creatingParentContainersIfNeeded()}:
     * that makes missing parents with synchronous calls on Curator's single background thread, where every caller
     * locking a new name would queue behind the others' (at 8 threads on new names, 0.4× the raw cycle).
     */
    @Override
    public CompletableFuture<Joined<LockNode, String>> join(LockRequest request) {
        return join(request, "acquire '" + request.name() + "'", LockPaths.lockPath(basePath, request.name()), 0);
    }

    /**
     * @param parentTries how many times the parent was made for this request: from the first, the parent's create
     *        is pipelined ahead of the node's; an existing parent answers {@code NODEEXISTS}, a missing base path
     *        {@code NONODE}, which makes every missing ancestor first
     */
    private CompletableFuture<Joined<LockNode, String>> join(LockRequest request, String what, String lockPath,
            int parentTries) {
        CompletableFuture<CuratorEvent> parent = parentTries == 0 ? CompletableFuture.completedFuture(null)
                : makeParent(lockPath, what);
        Stat stat = new Stat();
        CompletableFuture<CuratorEvent> created = calls.send(cb -> client.create().storingStatIn(stat)
                .withProtection().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).inBackground(cb)
                .forPath(lockPath + "/" + LockPaths.nodeName(request), holder(request)), what, Code.NONODE);
        CompletableFuture<CuratorEvent> listed = calls.send(cb -> client.getChildren().inBackground(cb)
                .forPath(lockPath), what, Code.NONODE);
        return created.thenCompose(event -> {
            if (event.getResultCode() != Code.NONODE.intValue()) {
                return joined(request, what, lockPath, event, listed);
            }
            if (parentTries >= MAX_PARENT_TRIES) {
                throw new LockUnavailableException("The parent node " + lockPath + " kept vanishing: cannot " + what);
            }
            String ancestor = ZKPaths.getPathAndNode(lockPath).getPath();
            return parent.thenCompose(made -> made != null && made.getResultCode() == Code.NONODE.intValue()
                    ? makeParents(ancestor, what) : CompletableFuture.completedFuture(null))
                    .thenCompose(ignored -> join(request, what, lockPath, parentTries + 1));
        });
    }

    private CompletableFuture<Joined<LockNode, String>> joined(LockRequest request, String what, String lockPath,
            CuratorEvent event, CompletableFuture<CuratorEvent> listed) {
        Stat createdStat = event.getStat();
        CompletableFuture<Stat> known = createdStat != null && createdStat.getCzxid() != 0
                ? CompletableFuture.completedFuture(createdStat)
                : stat(event.getName(), what); // a create recovered by Curator's protection
        known.whenComplete((found, error) -> {
            if (error != null) { // a node whose zxid is unknown is never registered, so no cancel could find it
                deleteQuietly(event.getName());
            }
        });
        return known.thenApply(found -> {
            LockNode node = new LockNode(request, lockPath, event.getName(), found.getCzxid(),
                    found.getEphemeralOwner());
            registry.register(node);
            return node;
        }).thenCompose(node -> listed.handle((list, error) -> {
            List<String> children = (error == null) ? list.getChildren() : null;
            // Not listed when the parent had to be made first (or the create was retried): list again then.
            return new Joined<>(node, children != null && children.contains(node.name) ? LockPaths.line(children)
                    : null);
        }));
    }

    /**
     * Creates a container node (ZooKeeper deletes it once its last child has gone).
     *
     * @return its outcome: {@code OK}, {@code NODEEXISTS}, or {@code NONODE} when its own parent is missing
     */
    private CompletableFuture<CuratorEvent> makeParent(String path, String what) {
        return calls.send(cb -> client.create().withMode(CreateMode.CONTAINER).inBackground(cb).forPath(path), what,
                Code.NODEEXISTS, Code.NONODE);
    }

    /** Makes a path of containers, its missing ancestors first (the base path, once). */
    private CompletableFuture<Void> makeParents(String path, String what) {
        if (path.equals("/")) {
            return CompletableFuture.completedFuture(null);
        }
        return makeParent(path, what).thenCompose(made -> made.getResultCode() != Code.NONODE.intValue()
                ? CompletableFuture.completedFuture(null)
                : makeParents(ZKPaths.getPathAndNode(path).getPath(), what)
                        .thenCompose(ignored -> makeParents(path, what)));
    }

    /** A node's data: the holder identity ({@link ZooKeeperDescriptions}). */
    private static byte[] holder(LockRequest request) {
        return request.holder().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public CompletableFuture<List<LinePlace<String>>> list(LockNode node) {
        return list(node.lockPath, "acquire '" + node.request().name() + "'").thenApply(LockPaths::line);
    }

    @Override
    public String place(LockNode node) {
        return node.name;
    }

    /** A node made in a session that ended is gone: ZooKeeper deleted it. */
    @Override
    public boolean usable(LockNode node) {
        long session = calls.currentSession();
        return session == 0 || node.sessionId == session;
    }

    @Override
    public LockUnavailableException ended(LockRequest request) {
        return new LockUnavailableException("The ZooKeeper session ended during the attempt: cannot acquire '"
                + request.name() + "'");
    }

    /**
     * A lock waiter watches its predecessor; a permit waiter watches the whole line and is judged again on the
     * listing that set the watch (a holder that left before the watch would otherwise wake nobody).
     */
    @Override
    public CompletableFuture<Optional<List<LinePlace<String>>>> await(LockNode node,
            LinePosition.Waits<String> position) {
        String what = "acquire '" + node.request().name() + "'";
        if (position instanceof LinePosition.WaitsBehind<String> behind) {
            return watchPredecessor(node, node.lockPath + "/" + behind.predecessor(), what)
                    .thenCompose(watching -> watching ? CompletableFuture.completedFuture(Optional.empty())
                            : list(node).thenApply(Optional::of)); // it went: look again
        }
        return watchLine(node, what).thenApply(children -> {
            if (LockPaths.position(children, node.name) instanceof LinePosition.WaitsForAPermit<String>) {
                return Optional.empty();
            }
            registry.stopWaiting(node);
            return Optional.of(LockPaths.line(children));
        });
    }

    /** @return the children of a lock's node; none when it does not exist */
    CompletableFuture<List<String>> list(String lockPath, String what) {
        return calls.send(cb -> client.getChildren().inBackground(cb).forPath(lockPath), what, Code.NONODE)
                .thenApply(event -> event.getChildren() != null ? event.getChildren() : List.of());
    }

    /**
     * Watches the node this waiter waits for; its deletion wakes the waiter ({@link NodeRegistry#deleted}).
     * {@code getData} rather than {@code exists}: on a node that is already gone it leaves no watch behind.
     *
     * @return false when the predecessor is already gone
     */
    private CompletableFuture<Boolean> watchPredecessor(LockNode node, String predecessor, String what) {
        registry.waitOn(node, predecessor);
        return calls.send(cb -> client.getData().usingWatcher(registry).inBackground(cb).forPath(predecessor), what,
                Code.NONODE).thenApply(event -> {
                    if (event.getResultCode() == Code.NONODE.intValue()) {
                        registry.stopWaiting(node);
                        return false;
                    }
                    return true;
                });
    }

    /**
     * Watches the whole line of a permit waiter's name and lists it in the same call: any node leaving (or coming)
     * wakes the waiters of that name on this client ({@link NodeRegistry#childrenChanged}). A permit is freed by
     * whichever holder leaves first, so no single node to watch would do; ZooKeeper keeps one children watch per
     * path and client, however many waiters set it.
     *
     * @return the children, listed when the watch was set: the waiter must judge its position on them, since a
     *         change before the watch wakes nobody
     */
    private CompletableFuture<List<String>> watchLine(LockNode node, String what) {
        registry.waitOn(node, node.lockPath);
        return calls.send(cb -> client.getChildren().usingWatcher(registry).inBackground(cb).forPath(node.lockPath),
                what, Code.NONODE).thenApply(event -> event.getChildren() != null ? event.getChildren() : List.of());
    }

    private CompletableFuture<Stat> stat(String path, String what) {
        return calls.send(cb -> client.checkExists().inBackground(cb).forPath(path), what).thenApply(event -> {
            Stat stat = event.getStat();
            if (stat == null) {
                throw new LockUnavailableException("The new lock node vanished at once: cannot " + what);
            }
            return stat;
        });
    }

    /**
     * Watches a held node, so that its deletion behind our back (an operator, data loss) counts as a lost lease.
     * Sent, not awaited: it costs the acquire no time.
     */
    @Override
    public void granted(LockNode node) {
        String path = node.path;
        calls.send(cb -> client.getData().usingWatcher(registry).inBackground(cb).forPath(path), "watch " + path,
                Code.NONODE).thenAccept(event -> {
                    if (event.getResultCode() == Code.NONODE.intValue()) {
                        registry.deleted(path);
                    }
                });
    }

    /** @return true when the node was deleted, false when it was already gone */
    CompletableFuture<Boolean> delete(String path, String what) {
        return calls.send(cb -> client.delete().guaranteed().inBackground(cb).forPath(path), what, Code.NONODE)
                .thenApply(event -> event.getResultCode() == Code.OK.intValue());
    }

    /**
     * Deletes a node; Curator keeps trying while the session lives ({@code guaranteed}), and the session's end
     * removes it otherwise.
     */
    @Override
    public CompletableFuture<Void> leave(LockNode node) {
        return deleteQuietly(node.path);
    }

    private CompletableFuture<Void> deleteQuietly(String path) {
        return delete(path, "delete " + path).handle((deleted, error) -> {
            if (error != null) {
                log.debug("Could not delete lock node {} yet (Curator retries; the session end removes it "
                        + "otherwise)", path, error);
            }
            return null;
        });
    }
}
