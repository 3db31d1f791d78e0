package dev.distlock.zookeeper;

import dev.distlock.spi.LockRequest;
import dev.distlock.spi.line.LineEntry;

/**
 * The ephemeral sequential node of one lock request: its entry in the line ({@link LineEntry}). An instance exists
 * only once ZooKeeper created the node, so its path, name, zxid and session are always known.
 */
final class LockNode extends LineEntry {

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

    LockNode(LockRequest request, String lockPath, String fullPath, long createZxid, long ownerSession) {
        super(request);
        this.lockPath = lockPath;
        this.path = fullPath;
        this.name = fullPath.substring(fullPath.lastIndexOf('/') + 1);
        this.czxid = createZxid;
        this.sessionId = ownerSession;
    }

    @Override
    public long fencingToken() {
        return czxid;
    }

    @Override
    public String toString() {
        // Never the owner token.
        return "LockNode[" + request().name() + ", " + name + (held() ? ", held" : "") + "]";
    }
}
