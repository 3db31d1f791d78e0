package dev.distlock.etcd;

import java.time.Duration;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.LockUnavailableException;
import dev.distlock.spi.LockMode;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.StoreHealth;
import dev.distlock.spi.StoreTraits;
import dev.distlock.spi.Waiting;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.KeyValue;
import io.etcd.jetcd.kv.GetResponse;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.op.Cmp;
import io.etcd.jetcd.op.CmpTarget;
import io.etcd.jetcd.op.Op;
import io.etcd.jetcd.options.GetOption;
import io.etcd.jetcd.options.PutOption;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The etcd v3 {@link LockStore}, on a jetcd {@link Client}.
 * <ul>
 * <li>A request puts one key, {@code <key-prefix>/<name>/<w|r>/<request id>} ({@link EtcdKeys}), on a lease, and
 * reads the key before it in the same transaction: one round trip when the lock is free. Keys queue by create
 * revision. A writer holds the lock when no key precedes its own, a reader when no writer's key does (the rules of
 * the ZooKeeper store); otherwise it waits for that one key — woken when its deletion reaches the store's single
 * watch ({@link KeyRegistry}) — and keeps its key, and its place, across the retries of the request. A waiter that
 * gives up deletes its key.</li>
 * <li>Permits: a request of {@code n} permits puts {@code <name>/p<n>/<request id>} and reads the oldest {@code n}
 * keys of {@code n} permits of the name in the same transaction; it holds while fewer than {@code n} of them are
 * older than its own, so holders come in arrival order and at most {@code n} hold. A waiter cannot wait for one key
 * (any key ahead leaving may let it in, and which leaves first is not known): it waits for its name as a whole,
 * woken by any deletion of the name's keys that reaches the watch, and reads again. The same transaction reads the
 * name's first key, which holds, so its number is the name's (a lock's keys are of 1): a request of another number
 * is refused with {@link LockRequest#permitsMismatch} and deletes its key before it can hold; until then its key is
 * in no other request's line, so it makes no rightful caller fail. A forced release deletes the keys that hold.</li>
 * <li>The fencing token is the key's create revision: etcd's revisions grow across the whole cluster and across
 * leader changes. A key is let in no later than every key put after it (it has fewer keys ahead), so the tokens of
 * a name's permits grow in the order they are granted too.</li>
 * <li>A release is a transaction that deletes the key only while it has the create revision of the lease being
 * released, so a late or repeated release never deletes a newer key (etcd #22082).</li>
 * <li>Watchdog requests put their keys on a lease the store shares among them and keeps alive itself
 * ({@link SessionLeases}): nothing is renewed per lock, and the engine renews nothing
 * ({@link StoreTraits.LeaseKind#SESSION}). A lost shared lease makes {@link #isHeld} false no later than etcd can have
 * expired it, and is reported. A fixed lease gets an etcd lease of its own, of the lease time rounded up to whole
 * seconds (etcd's TTLs are whole seconds, and etcd raises a TTL below its minimum, about 2 s, to that minimum); the
 * engine ends the lock at its own deadline and deletes the key then.</li>
 * <li>Every call answers asynchronously; the engine bounds the wait by {@code distlock.command-timeout} and undoes
 * an attempt that failed or answered late with {@link #cancel}, which deletes the request's key.</li>
 * </ul>
 */
public class EtcdLockStore implements LockStore {

    private static final Logger log = LoggerFactory.getLogger(EtcdLockStore.class);

    /** A waiter watches its predecessor; this only bounds the engine's fallback re-check. */
    private static final long RECHECK_MILLIS = 500;

    private static final Duration RECHECK = Duration.ofMillis(RECHECK_MILLIS);

    /** Rounds of one attempt (a key deleted behind its back meanwhile) before it answers busy. */
    private static final int MAX_ROUNDS = 8;

    private static final ByteSequence NO_VALUE = ByteSequence.EMPTY;

    /** For {@link #lineReads}: reads inside the put's transaction, where every key is older than the one put. */
    private static final long IN_THE_PUT = 0;

    private final Client client;

    private final boolean ownsClient;

    private final EtcdLockConfig config;

    private final KV kv;

    private final EtcdKeys keys;

    private final KeyRegistry registry;

    private final SessionLeases sessions;

    private final KeyDeletions deletions;

    private final ScheduledExecutorService scheduler;

    private final AtomicBoolean closed = new AtomicBoolean();

    /**
     * A store on the application's client, which the application closes.
     *
     * @param client a jetcd client
     * @param config the settings (its endpoints and credentials are the client's business here)
     */
    public EtcdLockStore(Client client, EtcdLockConfig config) {
        this(client, config, false);
    }

    private EtcdLockStore(Client client, EtcdLockConfig config, boolean ownsClient) {
        this.client = client;
        this.config = config;
        this.ownsClient = ownsClient;
        this.kv = client.getKVClient();
        this.keys = new EtcdKeys(config.keyPrefix());
        this.scheduler = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "distlock-etcd-leases");
            thread.setDaemon(true);
            return thread;
        });
        this.registry = new KeyRegistry(client.getWatchClient(), keys, scheduler);
        this.sessions = new SessionLeases(client.getLeaseClient(), scheduler, config.commandTimeout(),
                registry::sessionLost);
        this.deletions = new KeyDeletions(kv, scheduler, config.commandTimeout(), closed::get);
    }

    /**
     * A store with a client of its own, made from the settings; {@link #close()} closes it. Does not wait for the
     * cluster: locking fails closed until it is reachable.
     *
     * @param config the settings
     * @return the store
     */
    public static EtcdLockStore connect(EtcdLockConfig config) {
        return new EtcdLockStore(newClient(config), config, true);
    }

    /**
     * @param config the settings
     * @return a new jetcd client for the configured endpoints and credentials; every unary call is bounded by the
     *         command timeout ({@link UnaryCallDeadline}), so the lock path fails closed within it while no endpoint
     *         is reachable, and goes through once a reconnection is made within it
     */
    public static Client newClient(EtcdLockConfig config) {
        ClientBuilder builder = Client.builder()
                .endpoints(config.endpoints().stream().map(String::trim).toArray(String[]::new))
                .connectTimeout(config.commandTimeout()).interceptor(new UnaryCallDeadline(config.commandTimeout()));
        if (config.username() != null) {
            builder.user(ByteSequence.from(config.username(), StandardCharsets.UTF_8));
            if (config.password() != null) {
                builder.password(ByteSequence.from(config.password(), StandardCharsets.UTF_8));
            }
        }
        return builder.build();
    }

    /** @return the settings */
    public EtcdLockConfig config() {
        return config;
    }

    /** @return the jetcd client */
    public Client client() {
        return client;
    }

    @Override
    public void start(StoreEvents events) {
        registry.start(events);
    }

    @Override
    public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
        LockKey known = registry.byOwner(request.ownerToken());
        if (known != null && !known.leaseValid()) {
            forget(known); // its shared lease was lost: etcd deleted (or will delete) the key
            known = null;
        }
        // A failed attempt leaves its key in line; the engine's cancel, chained after it, deletes it. An attempt
        // refused for its permits deletes its key itself: the engine chains no cancel after a refusal.
        return attempt(request, waiting, known, 0)
                .exceptionallyCompose(error -> CompletableFuture.failedFuture(explain(error)));
    }

    /** @return the error, or one that says etcd refused the credentials when that is why the call failed */
    private Throwable explain(Throwable error) {
        return EtcdErrors.explain(error, config, ownsClient);
    }

    private CompletableFuture<Attempt> attempt(LockRequest request, Waiting waiting,
            @Nullable LockKey known, int round) {
        if (round == MAX_ROUNDS) {
            return CompletableFuture.completedFuture(Attempt.busy(Duration.ofMillis(1)));
        }
        CompletableFuture<Position> position = (known == null || known.createRevision == 0) ? queue(request)
                : recheck(known);
        return position.thenCompose(seen -> switch (seen.standing()) {
            case GONE -> { // deleted behind our back (lease ran out, an operator): queue again
                forget(seen.key());
                yield attempt(request, waiting, null, round + 1);
            }
            case GRANTED -> CompletableFuture.completedFuture(grant(seen.key()));
            case WAITING -> waitFor(request, waiting, seen);
            case OTHER_PERMITS -> cancel(request).toCompletableFuture() // the engine cancels no refused attempt
                    .thenCompose(left -> CompletableFuture.failedFuture(request.permitsMismatch(seen.heldWith())));
        });
    }

    /**
     * Puts the request's key on its lease and reads the name's first key and what precedes the request in its line,
     * in one transaction.
     */
    private CompletableFuture<Position> queue(LockRequest request) {
        EtcdKeys.Kind kind = EtcdKeys.Kind.of(request);
        ByteSequence key = keys.requestKey(request);
        long ttl = ttlSeconds(request);
        CompletableFuture<LockKey> onLease = request.watchdog()
                ? sessions.current(ttl).thenApply(session -> new LockKey(request, kind, key, session.id, session))
                : client.getLeaseClient().grant(ttl).thenApply(own -> new LockKey(request, kind, key, own.getID(),
                        null));
        return onLease.thenCompose(lockKey -> {
            registry.register(lockKey);
            List<Op> putAndRead = new ArrayList<>();
            putAndRead.add(Op.put(key, NO_VALUE, PutOption.builder().withLeaseId(lockKey.leaseId).build()));
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
                            return CompletableFuture.completedFuture(Position.gone(lockKey));
                        }
                        return CompletableFuture.<Position>failedFuture(error);
                    }).thenCompose(position -> position);
        });
    }

    private CompletableFuture<Position> queued(LockKey key, TxnResponse response) {
        if (!response.isSucceeded()) { // the key was there already: a repeated send of this request's put
            List<KeyValue> existing = response.getGetResponses().get(0).getKvs();
            if (existing.isEmpty()) {
                return CompletableFuture.completedFuture(Position.gone(key));
            }
            key.createRevision = existing.get(0).getCreateRevision();
            return recheck(key);
        }
        long revision = response.getHeader().getRevision(); // the transaction's: the key's create revision
        key.createRevision = revision;
        return CompletableFuture.completedFuture(positionOf(key, response.getGetResponses(), revision, revision));
    }

    /**
     * The reads that say where a key stands, in its put's transaction ({@link #IN_THE_PUT}: every key there is
     * older than the one put) or in a re-check (the keys created before it):
     * <ol>
     * <li>the first key of the name: it holds, so its number of permits is the name's; a request of another number
     * is refused;</li>
     * <li>the line ahead among the keys of the request's own number ({@link EtcdKeys#line}): for a lock the newest
     * blocker (a reader's blockers are the writers); for permits the oldest keys, as many as its permits.</li>
     * </ol>
     * A key of another number that is not first holds nothing and is about to be deleted by its own refused
     * caller: it is not in the line, so that it makes no rightful caller fail.
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

    /**
     * @param key the request's key
     * @param reads the answers to {@link #lineReads}, in order
     * @param createRevision the key's create revision
     * @param revision the revision of the read
     * @return where the key stands: refused when the name's first key is of another number of permits, holding,
     *         or waiting
     */
    private Position positionOf(LockKey key, List<GetResponse> reads, long createRevision, long revision) {
        LockRequest request = key.request;
        List<KeyValue> first = reads.get(0).getKvs();
        if (!first.isEmpty() && first.get(0).getCreateRevision() < createRevision) {
            int heldWith = keys.permitsOf(request.name(), first.get(0).getKey());
            if (heldWith != request.permits()) {
                return Position.mismatch(key, heldWith);
            }
        }
        List<KeyValue> line = reads.get(1).getKvs();
        if (request.mode() instanceof LockMode.Permits) {
            long ahead = line.stream().filter(kv -> kv.getCreateRevision() < createRevision).count();
            // A permit waits for the name as a whole: any key ahead leaving may let it in.
            return ahead < request.permits() ? Position.granted(key, revision)
                    : Position.waiting(key, keys.lockPrefix(request.name()), revision);
        }
        KeyValue predecessor = nearestBefore(line, createRevision);
        return predecessor == null ? Position.granted(key, revision)
                : Position.waiting(key, predecessor.getKey(), revision);
    }

    /**
     * Looks again where a queued key stands: still there, and what precedes it. A fixed lease is kept alive on the
     * way, so that it lasts its whole lease time from this attempt on, as the engine counts it.
     */
    private CompletableFuture<Position> recheck(LockKey key) {
        long revision = key.createRevision;
        CompletableFuture<TxnResponse> read = kv.txn()
                .If(new Cmp(key.key, Cmp.Op.EQUAL, CmpTarget.createRevision(revision)))
                .Then(lineReads(key.request, revision).toArray(Op[]::new))
                .commit();
        CompletableFuture<Boolean> leaseAlive = key.session != null ? CompletableFuture.completedFuture(true)
                : client.getLeaseClient().keepAliveOnce(key.leaseId)
                        .orTimeout(config.commandTimeout().toMillis(), TimeUnit.MILLISECONDS)
                        .handle((kept, error) -> {
                            if (error != null && !SessionLeases.notFound(error)) {
                                throw new LockUnavailableException("Could not keep the etcd lease of lock '"
                                        + key.request.name() + "' alive: " + error.getMessage(), error);
                            }
                            return error == null;
                        });
        return read.thenCombine(leaseAlive, (response, alive) -> {
            if (!response.isSucceeded() || !alive) {
                return Position.gone(key);
            }
            return positionOf(key, response.getGetResponses(), revision, response.getHeader().getRevision());
        });
    }

    private CompletableFuture<Attempt> waitFor(LockRequest request, Waiting waiting, Position position) {
        if (waiting instanceof Waiting.LastTry) { // a last (or only) attempt: leave the line now
            return cancel(request).thenApply(left -> Attempt.busy(RECHECK)).toCompletableFuture();
        }
        ByteSequence awaited = Objects.requireNonNull(position.awaited(), "what a waiting position waits for");
        registry.waitFor(position.key(), awaited, position.revision());
        return CompletableFuture.completedFuture(busyFor(waiting));
    }

    private Attempt grant(LockKey key) {
        if (registry.byOwner(key.owner()) != key || !key.leaseValid()) {
            throw new LockUnavailableException("The etcd lease ended during the attempt: cannot acquire '"
                    + key.request.name() + "'");
        }
        registry.stopWaiting(key);
        key.held = true;
        return Attempt.granted(key.createRevision);
    }

    /** Deletes the request's key, waiting or held. Never fails: the key's lease ends it otherwise. */
    @Override
    public CompletionStage<Void> cancel(LockRequest request) {
        LockKey key = registry.byOwner(request.ownerToken());
        if (key == null || !registry.forget(key)) {
            return CompletableFuture.completedFuture(null);
        }
        // A key whose create revision is not known (its put answered late) is this request's alone, so deleting
        // it unconditionally is safe.
        return deletions.delete(key.key, key.createRevision, key.session).handle((done, error) -> {
            if (error != null) {
                log.debug("Could not delete the etcd key of lock '{}'; its lease ends it", request.name(), error);
            }
            revokeOwnLease(key);
            return null;
        });
    }

    @Override
    public CompletionStage<ReleaseResult> release(Lease lease) {
        LockRequest request = lease.request();
        LockKey key = registry.byOwner(request.ownerToken());
        boolean ours = key != null && key.held && key.createRevision == lease.fencingToken() && registry.forget(key);
        ByteSequence name = keys.requestKey(request);
        SessionLease session = ours && key != null ? key.session : null;
        return deletions.delete(name, lease.fencingToken(), session).thenApply(response -> {
            if (ours && key != null) {
                revokeOwnLease(key);
            }
            return ours && response.isSucceeded() ? ReleaseResult.RELEASED : ReleaseResult.EXPIRED;
        });
    }

    /**
     * Deletes the holders' keys (the first in line, the readers at its head, or for a name of {@code n} permits the
     * first {@code n}), each only in the incarnation read.
     * Their instances see the deletion on their watch and report the loss at once; the waiter behind them is woken
     * by it, and its key's create revision, its fencing token, is above theirs.
     */
    @Override
    public CompletionStage<Boolean> forceRelease(String name) {
        return kv.get(keys.lockPrefix(name), oldestFirst().isPrefix(true).build()).thenCompose(read -> {
            List<KeyValue> holders = holders(name, read.getKvs());
            List<CompletableFuture<TxnResponse>> deleted = holders.stream()
                    .map(held -> deletions.delete(held.getKey(), held.getCreateRevision(), null)).toList();
            return CompletableFuture.allOf(deleted.toArray(CompletableFuture<?>[]::new))
                    .thenApply(done -> deleted.stream().anyMatch(delete -> delete.join().isSucceeded()));
        }).exceptionallyCompose(error -> CompletableFuture.failedFuture(explain(error)));
    }

    /**
     * @param inLine the name's keys, oldest first
     * @return the keys that hold it: of the keys that agree with the first on the permits (see
     *         {@link #lineReads}), the first {@code n} for {@code n} permits, the first for a writer, else the
     *         readers before the first writer
     */
    private List<KeyValue> holders(String name, List<KeyValue> inLine) {
        if (inLine.isEmpty()) {
            return List.of();
        }
        int heldWith = keys.permitsOf(name, inLine.get(0).getKey());
        List<KeyValue> agreeing = inLine.stream().filter(kv -> keys.permitsOf(name, kv.getKey()) == heldWith)
                .toList();
        return keys.isReader(name, inLine.get(0).getKey())
                ? agreeing.stream().takeWhile(held -> keys.isReader(name, held.getKey())).toList()
                : agreeing.stream().limit(heldWith).toList();
    }

    private void forget(LockKey key) {
        if (registry.forget(key)) {
            revokeOwnLease(key);
        }
    }

    /** A fixed lease's own etcd lease is of no use once its key is gone. */
    private void revokeOwnLease(LockKey key) {
        if (key.session == null) {
            client.getLeaseClient().revoke(key.leaseId).whenComplete((revoked, error) -> {
                if (error != null) {
                    log.debug("Could not revoke the etcd lease of lock '{}'; it runs out by itself",
                            key.request.name(), error);
                }
            });
        }
    }

    /**
     * Session leases: watchdog keys live on a shared lease that the store keeps alive, nothing is renewed. Counter
     * tokens: the keys' create revisions. Permits: a key of several permits says their number, and holds while fewer
     * keys of its name are older (see the class documentation).
     */
    @Override
    public StoreTraits traits() {
        return StoreTraits.of(StoreTraits.LeaseKind.SESSION, StoreTraits.TokenSource.COUNTER).withPermits();
    }

    @Override
    public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
        return CompletableFuture.completedFuture(leases.stream()
                .map(lease -> isHeld(lease) ? RenewalResult.RENEWED : RenewalResult.LOST).toList());
    }

    /** @return false once the key is known gone, and once its shared lease may have run out */
    @Override
    public boolean isHeld(Lease lease) {
        LockKey key = registry.byOwner(lease.request().ownerToken());
        return key != null && key.held && key.createRevision == lease.fencingToken() && key.leaseValid();
    }

    @Override
    public CompletionStage<StoreHealth> health() {
        Map<String, Object> details = new LinkedHashMap<>();
        details.put("endpoints", config.endpoints());
        details.put("keyPrefix", config.keyPrefix());
        long start = System.nanoTime();
        return kv.get(keys.storePrefix(), GetOption.builder().withCountOnly(true).build()).handle((read, error) -> {
            if (error != null) {
                details.put("etcd", "DOWN");
                details.put("error", String.valueOf(explain(error).getMessage()));
                return new StoreHealth(false, details);
            }
            details.put("etcd", "UP");
            details.put("checkMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            details.put("keys", registry.size());
            details.put("sharedLeases", sessions.size());
            return new StoreHealth(true, details);
        });
    }

    @Override
    public void close() {
        if (closed.compareAndSet(false, true)) {
            registry.close();
            // Revoked, the shared leases take any key left with them now instead of at the end of their TTL. Each
            // revoke is bounded by the command timeout; one that fails leaves its lease to run out by itself.
            sessions.close().join();
            scheduler.shutdownNow();
            if (ownsClient) {
                client.close();
            }
        }
    }

    private static GetOption.Builder oldestFirst() {
        return GetOption.builder().withKeysOnly(true).withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.ASCEND);
    }

    private static GetOption.Builder newestFirst() {
        return GetOption.builder().withKeysOnly(true).withSortField(GetOption.SortTarget.CREATE)
                .withSortOrder(GetOption.SortOrder.DESCEND);
    }

    /** @return the newest key created before the revision, from keys in descending create order */
    private static @Nullable KeyValue nearestBefore(List<KeyValue> newestFirst, long revision) {
        for (KeyValue kv : newestFirst) {
            if (kv.getCreateRevision() < revision) {
                return kv;
            }
        }
        return null;
    }

    /**
     * @return the lease in whole seconds, rounded up (etcd raises it to its minimum TTL, about 2 s by default)
     */
    static long ttlSeconds(LockRequest request) {
        return Math.max(1, (request.leaseMillis() + 999) / 1000);
    }

    @Override
    public String toString() {
        return "EtcdLockStore[" + config.endpoints() + ", " + config.keyPrefix() + "]";
    }

    /**
     * Where a request's key stands in its lock's line.
     *
     * @param key the request's key
     * @param standing where it stands
     * @param awaited what a waiter waits for: the key before it, or for a permit its name's lock prefix (any key)
     * @param revision the revision of the read
     * @param heldWith for {@link Standing#OTHER_PERMITS}, the permits of the name's first key
     */
    private record Position(LockKey key, Standing standing, @Nullable ByteSequence awaited, long revision,
            int heldWith) {

        static Position gone(LockKey key) {
            return new Position(key, Standing.GONE, null, 0, 0);
        }

        static Position granted(LockKey key, long revision) {
            return new Position(key, Standing.GRANTED, null, revision, 0);
        }

        static Position waiting(LockKey key, ByteSequence awaited, long revision) {
            return new Position(key, Standing.WAITING, awaited, revision, 0);
        }

        static Position mismatch(LockKey key, int heldWith) {
            return new Position(key, Standing.OTHER_PERMITS, null, 0, heldWith);
        }
    }

    /** Where a request's key stands. */
    private enum Standing {

        /** The key is gone (its lease ran out, or an operator deleted it). */
        GONE,

        /** The request holds the lock. */
        GRANTED,

        /** The request waits for {@link Position#awaited()}. */
        WAITING,

        /** The name is held with another number of permits (its first key's): the request is refused. */
        OTHER_PERMITS
    }

    /** Busy while the watch waits for the line to move: re-checked after {@link #RECHECK} at most. */
    private static Attempt busyFor(Waiting waiting) {
        return Attempt.busy(waiting.remaining().compareTo(RECHECK) < 0 ? waiting.remaining() : RECHECK);
    }
}
