package dev.distlock.spi.line;

import java.util.Objects;

import dev.distlock.spi.LockRequest;

/**
 * The entry of one lock request in its name's line (a ZooKeeper node, an etcd key), from its creation until
 * release, cancel or loss. The same entry serves every attempt of the request (found by its owner token in the
 * {@link LineRegistry}), so a waiter keeps its place in line. A store's subclass adds where the entry lives and the
 * session or lease it lives on.
 * <p>
 * Its fencing token is the number the server gave its creation (see the package's duties): it rises across the whole
 * server, and an entry holds no earlier than the entries created before it, so a later grant has a higher token.
 */
public abstract class LineEntry {

    private final LockRequest request;

    private volatile boolean held;

    /**
     * @param request the request the entry was made for
     */
    protected LineEntry(LockRequest request) {
        this.request = Objects.requireNonNull(request, "request");
    }

    /** @return the request the entry was made for */
    public final LockRequest request() {
        return request;
    }

    /** @return the request's owner token, the entry's key in the registry */
    public final String owner() {
        return request.ownerToken();
    }

    /** @return whether the request holds the lock (set once, by {@link LineAttempts} on the grant) */
    public final boolean held() {
        return held;
    }

    final void hold() {
        held = true;
    }

    /**
     * @return the fencing token the entry yields when granted: the number the server gave its creation; 0 while it
     *         is not known yet
     */
    public abstract long fencingToken();
}
