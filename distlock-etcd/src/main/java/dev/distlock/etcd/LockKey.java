package dev.distlock.etcd;

import dev.distlock.spi.LockRequest;
import dev.distlock.spi.line.LineEntry;
import io.etcd.jetcd.ByteSequence;
import org.jspecify.annotations.Nullable;

/**
 * The key of one lock request in etcd: its entry in the line ({@link LineEntry}). Its create revision orders the
 * line and is the fencing token.
 */
final class LockKey extends LineEntry {

    final EtcdKeys.Kind kind;

    /** The full key. */
    final ByteSequence key;

    /** The etcd lease the key lives on: the shared one of {@link #session}, or the request's own. */
    final long leaseId;

    /** The shared lease of a watchdog request, {@code null} for a fixed lease (its own, {@link #leaseId}). */
    final @Nullable SessionLease session;

    /** The key's create revision once etcd answered, else 0. */
    volatile long createRevision;

    /** The revision of the last read of the key's line: a deletion after it wakes the key's waiter. */
    volatile long readRevision;

    LockKey(LockRequest request, EtcdKeys.Kind kind, ByteSequence key, long leaseId, @Nullable SessionLease session) {
        super(request);
        this.kind = kind;
        this.key = key;
        this.leaseId = leaseId;
        this.session = session;
    }

    @Override
    public long fencingToken() {
        return createRevision;
    }

    /** @return whether the key's lease can be counted on now (a fixed lease: until the engine's own deadline) */
    boolean leaseValid() {
        SessionLease shared = session;
        return shared == null || shared.valid();
    }

    @Override
    public String toString() {
        // Never the owner token.
        return "LockKey[" + request().name() + ", " + kind + ", rev " + createRevision + (held() ? ", held" : "")
                + "]";
    }
}
