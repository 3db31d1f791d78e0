package dev.distlock.etcd;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.DeleteOption;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Deletes lock keys, each only in the incarnation that has a given create revision (any, for revision 0), so a
 * late or repeated delete never deletes a newer key (etcd #22082). A key on a shared lease would outlive its request
 * for as long as this instance keeps that lease alive, blocking everyone behind it: when etcd does not confirm such
 * a delete, it is sent again, with a backoff, until etcd answers or the lease is gone (and the key with it).
 */
final class KeyDeletions {

    private static final Logger log = LoggerFactory.getLogger(EtcdLockStore.class);

    private final KV kv;

    private final ScheduledExecutorService scheduler;

    private final long timeoutMillis;

    private final BooleanSupplier closed;

    KeyDeletions(KV kv, ScheduledExecutorService scheduler, Duration commandTimeout, BooleanSupplier closed) {
        this.kv = kv;
        this.scheduler = scheduler;
        this.timeoutMillis = commandTimeout.toMillis();
        this.closed = closed;
    }

    /**
     * @param key the key
     * @param createRevision the incarnation to delete, 0 for whichever there is
     * @param session the shared lease the key is on, whose delete is seen through; {@code null} for one sent once
     * @return etcd's answer to the first send: succeeded when that incarnation was there and is deleted
     */
    CompletableFuture<TxnResponse> delete(ByteSequence key, long createRevision, @Nullable SessionLease session) {
        CompletableFuture<TxnResponse> deleted = deleteIfCreatedAt(key, createRevision);
        if (session != null) {
            deleted.whenComplete((done, error) -> {
                if (error != null) {
                    deleteLater(key, createRevision, session, 0);
                }
            });
        }
        return deleted;
    }

    private void deleteLater(ByteSequence key, long createRevision, SessionLease session, int retries) {
        if (closed.getAsBoolean() || session.lost()) {
            return;
        }
        long delayMillis = Math.min(2000, 50L << Math.min(retries, 6));
        scheduler.schedule(() -> deleteIfCreatedAt(key, createRevision)
                .orTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
                .whenComplete((done, error) -> {
                    if (error != null) {
                        log.debug("etcd did not confirm the delete of a lock key; sending it again", error);
                        deleteLater(key, createRevision, session, retries + 1);
                    }
                }), delayMillis, TimeUnit.MILLISECONDS);
    }

    private CompletableFuture<TxnResponse> deleteIfCreatedAt(ByteSequence key, long createRevision) {
        Cmp[] onlyThat = createRevision == 0 ? new Cmp[0]
                : new Cmp[] { new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(createRevision)) };
        return kv.txn().If(onlyThat).Then(Op.delete(key, DeleteOption.DEFAULT)).commit();
    }
}
