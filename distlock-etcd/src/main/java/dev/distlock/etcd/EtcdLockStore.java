package dev.distlock.etcd;

import java.nio.charset.StandardCharsets;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.LockInfo;
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
import dev.distlock.spi.line.LineAttempts;
import dev.distlock.spi.line.LinePlace;
import dev.distlock.spi.line.LineHolders;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Client;
import io.etcd.jetcd.ClientBuilder;
import io.etcd.jetcd.KV;
import io.etcd.jetcd.kv.TxnResponse;
import io.etcd.jetcd.options.GetOption;

/**
 * The etcd v3 {@link LockStore}, on a jetcd {@link Client}.
 * <ul>
 * <li>A request puts one key, {@code <key-prefix>/<name>/<w|r>/<request id>} ({@link EtcdKeys}), on a lease, and
 * reads the key before it in the same transaction: one round trip when the lock is free. Keys queue by create
 * revision. A writer holds the lock when no key precedes its own, a reader when no writer's key does (the rules of
 * the ZooKeeper store); otherwise it waits for that one key — woken when its deletion reaches the store's single
 * watch ({@link KeyRegistry}) — and keeps its key, and its place, across the retries of the request. A waiter that
 * gives up deletes its key. This is the line of {@link dev.distlock.spi.line}, which this store drives
 * ({@link KeyLine}).</li>
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

    private final Client client;

    private final boolean ownsClient;

    private final EtcdLockConfig config;

    private final KV kv;

    private final EtcdKeys keys;

    private final KeyRegistry registry;

    private final SessionLeases sessions;

    private final KeyDeletions deletions;

    private final KeyLine driver;

    private final LineAttempts<LockKey, ByteSequence> line;

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
        this.driver = new KeyLine(kv, client.getLeaseClient(), keys, registry, sessions, deletions,
                config.commandTimeout());
        this.line = new LineAttempts<>(registry, driver);
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
        // An attempt refused for its permits deletes its key itself: the engine chains no cancel after a refusal.
        return line.attempt(request, waiting)
                .exceptionallyCompose(error -> CompletableFuture.failedFuture(explain(error)));
    }

    /** @return the error, or one that says etcd refused the credentials when that is why the call failed */
    private Throwable explain(Throwable error) {
        return EtcdErrors.explain(error, config, ownsClient);
    }

    /** Deletes the request's key, waiting or held. Never fails: the key's lease ends it otherwise. */
    @Override
    public CompletionStage<Void> cancel(LockRequest request) {
        return line.cancel(request);
    }

    @Override
    public CompletionStage<ReleaseResult> release(Lease lease) {
        LockRequest request = lease.request();
        LockKey key = registry.held(lease);
        boolean ours = key != null && registry.forget(key);
        SessionLease session = ours && key != null ? key.session : null;
        return deletions.delete(keys.requestKey(request), lease.fencingToken(), session).thenApply(response -> {
            if (ours && key != null) {
                driver.dropped(key);
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
        return kv.get(keys.lockPrefix(name), KeyLine.oldestFirst().isPrefix(true).build()).thenCompose(read -> {
            List<LinePlace<ByteSequence>> inLine = read.getKvs().stream().map(held -> driver.place(name, held))
                    .toList();
            return LineHolders.forceRelease(inLine,
                    held -> deletions.delete(held.id(), held.order(), null).thenApply(TxnResponse::isSucceeded));
        }).exceptionallyCompose(error -> CompletableFuture.failedFuture(explain(error)));
    }

    /** The holder key's value, create revision and lease time to live ({@link EtcdDescriptions}). */
    @Override
    public CompletionStage<Optional<LockInfo>> describe(String name) {
        return new EtcdDescriptions(client, keys, driver).describe(name)
                .exceptionallyCompose(error -> CompletableFuture.failedFuture(explain(error)));
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
        return LineHolders.renewals(leases, this::isHeld);
    }

    /** @return false once the key is known gone, and once its shared lease may have run out */
    @Override
    public boolean isHeld(Lease lease) {
        LockKey key = registry.held(lease);
        return key != null && key.leaseValid();
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

    @Override
    public String toString() {
        return "EtcdLockStore[" + config.endpoints() + ", " + config.keyPrefix() + "]";
    }
}
