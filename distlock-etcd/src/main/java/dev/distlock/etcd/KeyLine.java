package dev.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockUnavailableException;
import dev.distlock.spi.LockMode;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.line.LineDriver;
import dev.distlock.spi.line.LinePlace;
import dev.distlock.spi.line.LinePosition;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.Lease;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The etcd calls on lock keys that drive the line ({@link LineDriver}): a key is an entry, its create revision
 * orders the line and is the fencing token. A request puts its key on its lease and reads the line ahead of it in the
 * same transaction, one round trip when the lock is free; a re-check reads only what decides the key's standing:
 * <ol>
 * <li>the first key of the name: it holds, so its number of permits is the name's; a request of another number is
 * refused;</li>
 * <li>the line ahead among the keys of the request's own number ({@link EtcdKeys#line}): for a lock the newest
 * blocker (a reader's blockers are the writers); for permits the oldest keys, as many as its permits.</li>
 * </ol>
 * A key of another number that is not first holds nothing and is about to be deleted by its own refused caller: it
 * is not in the line, so that it makes no rightful caller fail. A waiter waits in the {@link KeyRegistry}: for the
 * key before it, or for a permit for any key of its name.
 */
final class KeyLine implements LineDriver<LockKey, ByteSequence> {

    private static final Logger log = LoggerFactory.getLogger(EtcdLockStore.class);


    /** For {@link #lineReads}: reads inside the put's transaction, where every key is older than the one put. */
    private static final long IN_THE_PUT = 0;

    private final KV kv;

    private final Lease leases;

    private final EtcdKeys keys;

    private final KeyRegistry registry;

    private final SessionLeases sessions;

    private final KeyDeletions deletions;

    private final long timeoutMillis;

    KeyLine(KV kv, Lease leases, EtcdKeys keys, KeyRegistry registry, SessionLeases sessions, KeyDeletions deletions,
            Duration commandTimeout) {
        this.kv = kv;
        this.leases = leases;
        this.keys = keys;
        this.registry = registry;
        this.sessions = sessions;
        this.deletions = deletions;
        this.timeoutMillis = commandTimeout.toMillis();
    }

    /** Puts the request's key on its lease and reads the line ahead of it, in one transaction. */
    @Override
    public CompletableFuture<Joined<LockKey, ByteSequence>> join(LockRequest request) {
        EtcdKeys.Kind kind = EtcdKeys.Kind.of(request);
        ByteSequence key = keys.requestKey(request);
        long ttl = ttlSeconds(request);
        CompletableFuture<LockKey> onLease = request.watchdog()
                ? sessions.current(ttl).thenApply(session -> new LockKey(request, kind, key, session.id, session))
                : leases.grant(ttl).thenApply(own -> new LockKey(request, kind, key, own.getID(), null));
        return onLease.thenCompose(lockKey -> {
            registry.register(lockKey);
            List<Op> putAndRead = new ArrayList<>();
            // The value is the holder identity, for EtcdDescriptions.
            putAndRead.add(Op.put(key, ByteSequence.from(request.holder(), StandardCharsets.UTF_8),
                    PutOption.builder().withLeaseId(lockKey.leaseId).build()));
            putAndRead.addAll(lineReads(request, IN_THE_PUT));
            return kv.txn().If(new Cmp(key, Cmp.Op.EQUAL, CmpTarget.createRevision(0)))
                    .Then(putAndRead.toArray(Op[]::new))
                    .Else(Op.get(key, GetOption.DEFAULT)).commit()
                    .handle((response, error) -> {
                        if (error == null) {
                            return queued(lockKey, response);
                        }
                        if (SessionLeases.notFound(error)) { // the lease ended before the put: queue on a new one
                            if (lockKey.session != null) {
                                sessions.lose(lockKey.session, "etcd no longer knows it");
                            }
                            return CompletableFuture.completedFuture(List.<LinePlace<ByteSequence>>of()); // gone
                        }
                        return CompletableFuture.<List<LinePlace<ByteSequence>>>failedFuture(error);
                    }).thenCompose(line -> line.thenApply(listed -> new Joined<>(lockKey, listed)));
        });
    }

    private CompletableFuture<List<LinePlace<ByteSequence>>> queued(LockKey key, TxnResponse response) {
        if (!response.isSucceeded()) { // the key was there already: a repeated send of this request's put
            List<KeyValue> existing = response.getGetResponses().get(0).getKvs();
            if (existing.isEmpty()) {
                return CompletableFuture.completedFuture(List.of()); // gone
            }
            key.createRevision = existing.get(0).getCreateRevision();
            return list(key);
        }
        long revision = response.getHeader().getRevision(); // the transaction's: the key's create revision
        key.createRevision = revision;
        key.readRevision = revision;
        return CompletableFuture.completedFuture(line(key, response.getGetResponses()));
    }

    /**
     * The reads that say where a key stands (see the class comment), in its put's transaction ({@link #IN_THE_PUT}:
     * every key there is older than the one put) or in a re-check (the keys created before it).
     */
    private List<Op> lineReads(LockRequest request, long createRevision) {
        List<Op> reads = new ArrayList<>();
        reads.add(Op.get(keys.lockPrefix(request.name()), aheadOf(oldestFirst().isPrefix(true), createRevision)
                .withLimit(1).build()));
        EtcdKeys.KeyRange line = keys.line(request);
        if (request.mode() instanceof LockMode.Permits) {
            reads.add(Op.get(line.from(), aheadOf(oldestFirst().withRange(line.to()), createRevision)
                    .withLimit(request.permits()).build()));
        }
        else if (createRevision == IN_THE_PUT) {
            // The newest key is the one put: the one before it is the predecessor.
            reads.add(Op.get(line.from(), newestFirst().withRange(line.to()).withLimit(2).build()));
        }
        else {
            reads.add(Op.get(line.from(), newestFirst().withRange(line.to())
                    .withMaxCreateRevision(createRevision - 1).withLimit(1).build()));
        }
        return reads;
    }

    private static GetOption.Builder aheadOf(GetOption.Builder read, long createRevision) {
        return createRevision == IN_THE_PUT ? read : read.withMaxCreateRevision(createRevision - 1);
    }

    /** @return the key and the keys the reads found, once each: what {@link LinePosition#of} judges */
    private List<LinePlace<ByteSequence>> line(LockKey key, List<GetResponse> reads) {
        String name = key.request().name();
        Map<ByteSequence, LinePlace<ByteSequence>> line = new LinkedHashMap<>();
        line.put(key.key, new LinePlace<>(key.key, key.createRevision, key.request().mode()));
        reads.forEach(read -> read.getKvs().forEach(found -> line.putIfAbsent(found.getKey(), place(name, found))));
        return List.copyOf(line.values());
    }

    LinePlace<ByteSequence> place(String name, KeyValue found) {
        return new LinePlace<>(found.getKey(), found.getCreateRevision(), keys.modeOf(name, found.getKey()));
    }

    /**
     * Looks again where a queued key stands: still there, and what precedes it. A fixed lease is kept alive on the
     * way, so that it lasts its whole lease time from this attempt on, as the engine counts it.
     */
    @Override
    public CompletableFuture<List<LinePlace<ByteSequence>>> list(LockKey key) {
        long revision = key.createRevision;
        CompletableFuture<TxnResponse> read = kv.txn()
                .If(new Cmp(key.key, Cmp.Op.EQUAL, CmpTarget.createRevision(revision)))
                .Then(lineReads(key.request(), revision).toArray(Op[]::new))
                .commit();
        CompletableFuture<Boolean> leaseAlive = key.session != null ? CompletableFuture.completedFuture(true)
                : leases.keepAliveOnce(key.leaseId).orTimeout(timeoutMillis, TimeUnit.MILLISECONDS)
                        .handle((kept, error) -> {
                            if (error != null && !SessionLeases.notFound(error)) {
                                throw new LockUnavailableException("Could not keep the etcd lease of lock '"
                                        + key.request().name() + "' alive: " + error.getMessage(), error);
                            }
                            return error == null;
                        });
        return read.thenCombine(leaseAlive, (response, alive) -> {
            if (!response.isSucceeded() || !alive) {
                return List.of(); // gone
            }
            key.readRevision = response.getHeader().getRevision();
            return line(key, response.getGetResponses());
        });
    }

    @Override
    public ByteSequence place(LockKey key) {
        return key.key;
    }

    /** Waits in the registry, which the store's one watch tells of deletions: nothing to send. */
    @Override
    public CompletableFuture<Optional<List<LinePlace<ByteSequence>>>> await(LockKey key,
            LinePosition.Waits<ByteSequence> position) {
        // A permit waits for the name as a whole: any key ahead leaving may let it in.
        ByteSequence awaited = position instanceof LinePosition.WaitsBehind<ByteSequence> behind
                ? behind.predecessor() : keys.lockPrefix(key.request().name());
        registry.waitFor(key, awaited, key.readRevision);
        return CompletableFuture.completedFuture(Optional.empty());
    }

    /** Deletes the key. Never fails: the key's lease ends it otherwise. */
    @Override
    public CompletableFuture<Void> leave(LockKey key) {
        // A key whose create revision is not known (its put answered late) is this request's alone, so deleting
        // it unconditionally is safe.
        return deletions.delete(key.key, key.createRevision, key.session).handle((done, error) -> {
            if (error != null) {
                log.debug("Could not delete the etcd key of lock '{}'; its lease ends it", key.request().name(),
                        error);
            }
            dropped(key);
            return null;
        });
    }

    /** A key whose put's answer was lost is queued again (its put finds it if it landed). */
    @Override
    public boolean usable(LockKey key) {
        return key.leaseValid() && key.createRevision != 0;
    }

    @Override
    public LockUnavailableException ended(LockRequest request) {
        return new LockUnavailableException("The etcd lease ended during the attempt: cannot acquire '"
                + request.name() + "'");
    }

    /** A fixed lease's own etcd lease is of no use once its key is gone. */
    @Override
    public void dropped(LockKey key) {
        if (key.session == null) {
            leases.revoke(key.leaseId).whenComplete((revoked, error) -> {
                if (error != null) {
                    log.debug("Could not revoke the etcd lease of lock '{}'; it runs out by itself",
                            key.request().name(), error);
                }
            });
        }
    }

    static GetOption.Builder oldestFirst() {
        return GetOption.builder().withKeysOnly(true).withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.ASCEND);
    }

    private static GetOption.Builder newestFirst() {
        return GetOption.builder().withKeysOnly(true).withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND);
    }

    /** @return the lease in whole seconds, rounded up (etcd raises it to its minimum TTL, about 2 s by default) */
    static long ttlSeconds(LockRequest request) {
        return Math.max(1, (request.leaseMillis() + 999) / 1000);
    }
}
