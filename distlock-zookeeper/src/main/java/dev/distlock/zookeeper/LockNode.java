package dev.distlock.zookeeper;

import dev.distlock.spi.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * The ephemeral sequential node of one lock request, from its creation until release, cancellation or loss. The
 * same node serves every attempt of the request (keyed by its owner token), so a waiter keeps its place in line.
 * An instance exists only once ZooKeeper created the node, so its path, name, zxid and session are always known.
 */
final class LockNode {

    final LockRequest request;

    /** The path of the lock's parent node. */
    final String lockPath;

    /** The full path. */
    final String path;

    /** The node's name (last path segment), as listed among the lock's children. */
    final String name;

    /** The zxid that created the node: the fencing token. */
    final long czxid;

    /** The session that owns the (ephemeral) node; when that session ends, ZooKeeper deletes the node. */
    final long sessionId;

    /** Whether the request holds the lock. */
    volatile boolean held;

    /** The node this waiter watches, if any. */
    volatile @Nullable String watching;

    LockNode(LockRequest request, String lockPath, String fullPath, long createZxid, long ownerSession) {
        this.request = request;
        this.lockPath = lockPath;
        this.path = fullPath;
        this.name = fullPath.substring(fullPath.lastIndexOf('/') + 1);
        this.czxid = createZxid;
        this.sessionId = ownerSession;
    }

    String owner() {
        return request.ownerToken();
    }

    @Override
    public String toString() {
        // Never the owner token.
        return "LockNode[" + request.name() + ", " + name + (held ? ", held" : "") + "]";
    }
}
