package dev.distlock.zookeeper;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import dev.distlock.spi.StoreEvents;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes this store made and what it hears about them: the one {@link Watcher} of the store (on waiters'
 * predecessors, on the lines of permit waiters and on held nodes) and the session's state. It turns ZooKeeper's
 * news into engine events:
 * <ul>
 * <li>a watched predecessor deleted → {@link StoreEvents#released} for the waiter behind it, which tries at once;</li>
 * <li>the children of a watched line changed → {@link StoreEvents#released} for every permit waiter of that name on
 * this client, which look again;</li>
 * <li>a held node deleted (by an operator, or data loss) → {@link StoreEvents#leaseLost};</li>
 * <li>the session {@link ConnectionState#SUSPENDED} → every lease reads as not held until it is back;</li>
 * <li>the session {@link ConnectionState#LOST} → every held lease is lost (the server deletes ephemeral nodes of an
 * expired session) and every waiter tries again, with a new node in the new session.</li>
 * </ul>
 */
final class NodeRegistry implements Watcher, ConnectionStateListener {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockStore.class);

    private final ConcurrentHashMap<String, LockNode> byOwner = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, LockNode> byPath = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<String, Set<LockNode>> waitersOn = new ConcurrentHashMap<>();

    private volatile StoreEvents events = StoreEvents.NONE;

    private volatile boolean suspended;

    /** The id of the session the client is connected with now, 0 when it is not connected. */
    private final LongSupplier currentSession;

    NodeRegistry(LongSupplier currentSession) {
        this.currentSession = currentSession;
    }

    void start(StoreEvents events) {
        this.events = events;
    }


    boolean suspended() {
        return suspended;
    }

    @Nullable LockNode byOwner(String ownerToken) {
        return byOwner.get(ownerToken);
    }

    int size() {
        return byOwner.size();
    }

    /** Tracks a created node under its owner token and its path. */
    void register(LockNode node) {
        byOwner.put(node.owner(), node);
        byPath.put(node.path, node);
    }

    /** @return true when the node was tracked and is not any more (so only one caller acts on its end) */
    boolean forget(LockNode node) {
        if (!byOwner.remove(node.owner(), node)) {
            return false;
        }
        String path = node.path;
        if (path != null) {
            byPath.remove(path, node);
        }
        stopWaiting(node);
        return true;
    }

    /**
     * Registers a waiter on the path it watches before the watch is set, so no news goes unheard: a predecessor's
     * path (its deletion), or the lock's own path for a permit waiter (a change of its children). The two never
     * share a path: a lock's path is the parent of its nodes' paths.
     */
    void waitOn(LockNode node, String watchedPath) {
        stopWaiting(node);
        node.watching = watchedPath;
        waitersOn.computeIfAbsent(watchedPath, path -> ConcurrentHashMap.newKeySet()).add(node);
    }

    void stopWaiting(LockNode node) {
        String watched = node.watching;
        if (watched != null) {
            node.watching = null;
            waitersOn.computeIfPresent(watched, (path, waiters) -> waiters.remove(node) && waiters.isEmpty()
                    ? null : waiters);
        }
    }

    @Override
    public void process(WatchedEvent event) {
        String path = event.getPath();
        if (path == null) {
            return;
        }
        switch (event.getType()) {
            case NodeDeleted -> deleted(path);
            case NodeChildrenChanged -> childrenChanged(path);
            default -> {
                // Data changes are not watched for (no lock node's data ever changes); the rest is session news.
            }
        }
    }

    /** A node is gone: a lease of ours is lost, or waiters behind it try again. */
    void deleted(String path) {
        LockNode own = byPath.get(path);
        if (own != null && own.held && forget(own)) {
            log.warn("ZooKeeper node of lock '{}' was deleted while held (by an operator or data loss?)",
                    own.request.name());
            events.leaseLost(own.owner());
        }
        wake(path);
    }

    /**
     * A node of a lock came or went: the permit waiters of that lock look again. ZooKeeper sends this once per
     * watch; each waiter that still waits sets it again as it lists the line.
     */
    void childrenChanged(String lockPath) {
        wake(lockPath);
    }

    private void wake(String watchedPath) {
        Set<LockNode> waiters = waitersOn.remove(watchedPath);
        if (waiters != null) {
            for (LockNode waiter : waiters) {
                waiter.watching = null;
                events.released(waiter.request.name(), waiter.owner());
            }
        }
    }

    @Override
    public void stateChanged(CuratorFramework client, ConnectionState state) {
        switch (state) {
            case SUSPENDED, READ_ONLY -> {
                suspended = true;
                if (!byOwner.isEmpty()) {
                    log.warn("ZooKeeper connection {}: {} lock(s) of this instance count as not held until it "
                            + "is back", state, byOwner.values().stream().filter(n -> n.held).count());
                }
            }
            case LOST -> {
                suspended = true;
                loseOtherSessions(currentSession.getAsLong());
            }
            case CONNECTED, RECONNECTED -> {
                suspended = false;
                long current = currentSession.getAsLong();
                if (current != 0) { // in case the news of an expired session came late or not at all
                    loseOtherSessions(current);
                }
                // Watches survive a reconnection of the same session; a re-check costs little and covers a gap.
                byOwner.values().stream().filter(n -> !n.held)
                        .forEach(n -> events.released(n.request.name(), n.owner()));
            }
        }
    }

    /**
     * A session ended: ZooKeeper deletes its ephemeral nodes, so every lease of it is gone. Nodes that the new
     * session made meanwhile (this news is delivered on a thread of its own, possibly after the reconnection) stay.
     */
    private void loseOtherSessions(long current) {
        for (LockNode node : byOwner.values()) {
            if (node.sessionId != current && forget(node)) {
                if (node.held) {
                    log.warn("ZooKeeper session lost: lease of lock '{}' lost", node.request.name());
                    events.leaseLost(node.owner());
                }
                else {
                    events.released(node.request.name(), node.owner());
                }
            }
        }
    }

    void clear() {
        byOwner.clear();
        byPath.clear();
        waitersOn.clear();
        events = StoreEvents.NONE;
    }
}
