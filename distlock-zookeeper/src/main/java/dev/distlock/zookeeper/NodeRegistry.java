package dev.distlock.zookeeper;

import java.util.function.LongSupplier;

import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.line.LineRegistry;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.state.ConnectionStateListener;
import org.apache.zookeeper.WatchedEvent;
import org.apache.zookeeper.Watcher;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The nodes this store made ({@link LineRegistry}, by path) and what it hears about them: the one {@link Watcher}
 * of the store (on waiters' predecessors, on the lines of permit waiters and on held nodes) and the session's
 * state. It turns ZooKeeper's news into engine events:
 * <ul>
 * <li>a watched predecessor deleted → {@link StoreEvents#released} for the waiter behind it, which tries at once;</li>
 * <li>the children of a watched line changed → {@link StoreEvents#released} for every permit waiter of that name on
 * this client, which look again;</li>
 * <li>a held node deleted (by an operator, or data loss) → {@link StoreEvents#leaseLost};</li>
 * <li>the session {@link ConnectionState#SUSPENDED} → every lease reads as not held until it is back;</li>
 * <li>the session {@link ConnectionState#LOST} → every held lease is lost (the server deletes ephemeral nodes of an
 * expired session) and every waiter tries again, with a new node in the new session.</li>
 * </ul>
 * A waiter's predecessor's path and the lock's path a permit waiter watches never coincide: a lock's path is the
 * parent of its nodes' paths.
 */
final class NodeRegistry extends LineRegistry<LockNode, String> implements Watcher, ConnectionStateListener {

    private static final Logger log = LoggerFactory.getLogger(ZooKeeperLockStore.class);

    private volatile boolean suspended;

    /** The id of the session the client is connected with now, 0 when it is not connected. */
    private final LongSupplier currentSession;

    NodeRegistry(LongSupplier currentSession) {
        super(log);
        this.currentSession = currentSession;
    }

    @Override
    protected String location(LockNode node) {
        return node.path;
    }

    boolean suspended() {
        return suspended;
    }

    @Override
    public void process(WatchedEvent event) {
        String path = event.getPath();
        if (path == null) {
            return;
        }
        switch (event.getType()) {
            case NodeDeleted -> deleted(path);
            // A node of a lock came or went: its permit waiters look again. ZooKeeper sends this once per watch;
            // each waiter that still waits sets it again as it lists the line.
            case NodeChildrenChanged -> wake(path);
            default -> {
                // Data changes are not watched for (no lock node's data ever changes); the rest is session news.
            }
        }
    }

    /** A node is gone: a lease of ours is lost, or waiters behind it try again. */
    void deleted(String path) {
        LockNode own = at(path);
        if (own != null && own.held()) {
            gone(own, "ZooKeeper node of lock '{}' was deleted while held (by an operator or data loss?)");
        }
        wake(path);
    }

    @Override
    public void stateChanged(CuratorFramework client, ConnectionState state) {
        switch (state) {
            case SUSPENDED, READ_ONLY -> {
                suspended = true;
                if (size() > 0) {
                    log.warn("ZooKeeper connection {}: the locks of this instance count as not held until it is "
                            + "back", state);
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
                wakeEveryWaiter();
            }
        }
    }

    /**
     * A session ended: ZooKeeper deletes its ephemeral nodes, so every lease of it is gone. Nodes that the new
     * session made meanwhile (this news is delivered on a thread of its own, possibly after the reconnection) stay.
     */
    private void loseOtherSessions(long current) {
        loseWhere(node -> node.sessionId != current, "ZooKeeper session lost");
    }
}
