package dev.distlock.etcd;

import dev.distlock.spi.LockRequest;
import io.etcd.jetcd.ByteSequence;
import org.jspecify.annotations.Nullable;

/**
 * The key of one lock request in etcd, from its creation until release, cancellation or loss. The same key serves
 * every attempt of the request (found by its owner token), so a waiter keeps its place in line; its create revision
 * orders the line and is the fencing token.
 */
final class LockKey {

    final LockRequest request;

    final EtcdKeys.Kind kind;

    /** The full key. */
    final ByteSequence key;

    /** The etcd lease the key lives on: the shared one of {@link #session}, or the request's own. */
    final long leaseId;

    /** The shared lease of a watchdog request, {@code null} for a fixed lease (its own, {@link #leaseId}). */
    final @Nullable SessionLease session;

    /** The key's create revision once etcd answered, else 0. */
    volatile long createRevision;

    /** Whether the request holds the lock. */
    volatile boolean held;

    /** The key this waiter waits for, if any ({@link KeyRegistry#waitFor}). */
    volatile @Nullable ByteSequence watched;

    LockKey(LockRequest request, EtcdKeys.Kind kind, ByteSequence key, long leaseId, @Nullable SessionLease session) {
        this.request = request;
        this.kind = kind;
        this.key = key;
        this.leaseId = leaseId;
        this.session = session;
    }

    String owner() {
        return request.ownerToken();
    }

    /** @return whether the key's lease can be counted on now (a fixed lease: until the engine's own deadline) */
    boolean leaseValid() {
        SessionLease shared = session;
        return shared == null || shared.valid();
    }

    @Override
    public String toString() {
        // Never the owner token.
        return "LockKey[" + request.name() + ", " + kind + ", rev " + createRevision + (held ? ", held" : "") + "]";
    }
}
