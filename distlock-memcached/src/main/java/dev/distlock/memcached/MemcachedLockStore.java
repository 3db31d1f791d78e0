package dev.distlock.memcached;

import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import com.spotify.folsom.GetResult;
import com.spotify.folsom.MemcacheStatus;
import dev.distlock.InvalidPropertyException;
import dev.distlock.LockInfo;
import dev.distlock.LockUnavailableException;
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
import org.jspecify.annotations.Nullable;

/**
 * The Memcached {@link LockStore}: a name is one item ({@link LockItem}) on one of the {@link MemcachedServers}.
 * Acquire is {@code add} with a {@code gets} pipelined behind it (one round trip); an item that is free, whose lease
 * ended, or the request's own, is then taken by {@code cas}, as renewals and releases are, owner-checked. A release
 * of an item nobody wrote since its {@code add} is one {@code cas} with the CAS that {@code gets} read; any other is a
 * {@code gets} and an owner-checked {@code cas}. <b>The lease's end is the one written in
 * the item</b> (by the writer's token clock), and other instances take the name only {@link #CLOCK_SKEW_MICROS} after
 * it: Memcached's own clock cannot end a lease. It ticks once a second on a timer, lags real time (2 s was seen), and
 * after the server was paused it lags by the pause until its timer runs again; with expiry as the lease (rounded up,
 * plus one second) the fault campaign found two overlaps, each after a paused server or a late tick. The item's expiry,
 * the lease rounded up plus {@link #EXPIRY_GRACE_SECONDS}, only cleans up. Tokens
 * ({@link StoreTraits.TokenSource#CLOCK}) are at least the token clock in µs and above the item's; a release leaves a
 * free item with the floor for a lease. Memcached has no notifications: a waiter backs off 20 ms, doubling per busy
 * answer up to the engine's 500 ms (each jittered down to half). No permits; a reader holds the name alone. The
 * guarantee and its limits: docs/how-to/memcached.md.
 */
public final class MemcachedLockStore implements LockStore {

    private static final int TRIES = 5; // writes per update, each after someone else's write came between
    /** How far instances' clocks may be apart: a lease ends for the others this long after its written end. */
    static final long CLOCK_SKEW_MICROS = 1_000_000;
    /** How long an item outlives its lease before Memcached drops it: far more than Memcached's clock lags. */
    static final int EXPIRY_GRACE_SECONDS = 10;
    private static final int FORCED_FLOOR_SECONDS = 31; // a forced release knows no lease: the default one, plus 1
    private static final int MAX_ADDED_CAS = 100_000; // beyond, releases read their item first

    private final MemcachedServers servers;
    private final String keyPrefix;
    private final Map<String, Integer> busyAnswers = new ConcurrentHashMap<>();
    final AddedItems addedItems; // the CAS of added items, for one-round-trip releases; package-private for tests
    private volatile StoreEvents events = StoreEvents.NONE;

    private MemcachedLockStore(MemcachedServers servers, String keyPrefix, int maxAddedCas) {
        this.servers = servers;
        this.keyPrefix = keyPrefix;
        this.addedItems = new AddedItems(maxAddedCas);
    }

    /**
     * @param config the settings
     * @return a store on a client of its own (closed with it), the servers checked ({@link MemcachedServers})
     * @throws InvalidPropertyException naming {@code distlock.memcached.allow-evictions} when a server may evict and
     *         the property is false
     */
    public static MemcachedLockStore connect(MemcachedLockConfig config) {
        return connect(config, Clock.systemUTC());
    }

    /** As {@link #connect(MemcachedLockConfig)} on another wall clock: tests and the campaign skew instances'. */
    static MemcachedLockStore connect(MemcachedLockConfig config, Clock clock) {
        return connect(config, clock, MAX_ADDED_CAS);
    }

    /** As {@link #connect(MemcachedLockConfig, Clock)} with room for fewer added CAS: tests fill it up. */
    static MemcachedLockStore connect(MemcachedLockConfig config, Clock clock, int maxAddedCas) {
        return new MemcachedLockStore(new MemcachedServers(config, clock).checkAtStart(), config.keyPrefix(),
                maxAddedCas);
    }

    @Override
    public StoreTraits traits() {
        return StoreTraits.of(StoreTraits.LeaseKind.EXPIRING, StoreTraits.TokenSource.CLOCK);
    }

    @Override
    public void start(StoreEvents events) {
        this.events = events;
    }

    @Override
    public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
        int expiry = expirySeconds(request.leaseTime());
        return servers.ready().thenCompose(client -> { // the clock after the check: it may correct it
            LockItem mine = held(request, servers.clockMicros());
            String key = key(keyPrefix, request.name());
            String value = mine.encode();
            CompletionStage<MemcacheStatus> add = client.add(key, value, expiry);
            // Pipelined behind the add on the same connection, answered in the same round trip: the item's CAS for
            // a release in one round trip, or the item in the way for the update that may take it.
            CompletionStage<@Nullable GetResult<String>> read = client.casGet(key);
            return add.thenCompose(added -> added == MemcacheStatus.OK
                    ? read.handle((found, failure) -> remember(request, mine, value, failure == null ? found : null))
                    : added != MemcacheStatus.ITEM_NOT_STORED ? failed(request.name(), added)
                    : update(request.name(), expiry, item -> item.owner().equals(request.ownerToken())
                            ? held(request, item.token())
                            : item.isFree() || item.leaseEndMicros() + CLOCK_SKEW_MICROS < servers.clockMicros()
                            ? held(request, Math.max(servers.clockMicros(), item.token() + 1)) : null, TRIES, read));
        }).thenApply(taken -> answer(request, waiting, taken));
    }

    /**
     * Keeps the CAS of an item this request has just added, when the pipelined read found it unchanged: any write
     * since changes the CAS, so a release by that CAS frees the item only as it was added ({@link #release}).
     */
    private LockItem remember(LockRequest request, LockItem mine, String value, @Nullable GetResult<String> found) {
        if (found != null && value.equals(found.getValue())) {
            addedItems.remember(request.ownerToken(), found.getCas(), mine.token(), request.leaseTime());
        }
        return mine;
    }

    private Attempt answer(LockRequest request, Waiting waiting, @Nullable LockItem taken) {
        if (taken != null || waiting instanceof Waiting.LastTry) {
            busyAnswers.remove(request.ownerToken());
            return taken != null ? Attempt.granted(taken.token()) : Attempt.busy(Duration.ofMillis(1));
        }
        long ceiling = Math.min(500, 10L << Math.min(busyAnswers.merge(request.ownerToken(), 1, Integer::sum), 6));
        return Attempt.busy(Duration.ofMillis(ThreadLocalRandom.current().nextLong(ceiling / 2, ceiling + 1)));
    }

    /**
     * Tried again every 250 ms for up to 10 s while Memcached does not answer: Folsom fails a call at once while its
     * connection is down (Lettuce would queue it), and an attempt that reached a frozen server before the engine gave
     * up on it is granted when the server thaws; undone by nobody, it would block the name for a whole lease.
     */
    @Override
    public CompletionStage<Void> cancel(LockRequest request) {
        busyAnswers.remove(request.ownerToken());
        // The engine sends a cancel only once the attempt's stage is done (LockStore), so the add's CAS, if it was
        // kept, is kept by now: the undo's release takes it (a cancel sent while the attempt still ran could miss
        // it, the attempt's read not yet answered).
        return undo(request, 40);
    }

    private CompletionStage<Void> undo(LockRequest request, int tries) {
        return release(request, 0).handle((freed, failure) -> failure == null || tries <= 1
                ? CompletableFuture.<Void>completedFuture(null)
                : CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(250, TimeUnit.MILLISECONDS))
                        .thenCompose(later -> undo(request, tries - 1))).thenCompose(Function.identity());
    }

    /** The lease's token may be above its item's (local hand-offs): the floor takes it. */
    @Override
    public CompletionStage<ReleaseResult> release(Lease lease) {
        busyAnswers.remove(lease.request().ownerToken());
        return release(lease.request(), lease.fencingToken())
                .thenApply(freed -> freed != null ? ReleaseResult.RELEASED : ReleaseResult.EXPIRED);
    }

    /**
     * One round trip when the item is as its acquire added it: a {@code cas} with the CAS read then. Otherwise
     * (renewed, taken over, or no CAS kept) a {@code gets} and an owner-checked {@code cas}.
     */
    private CompletionStage<@Nullable LockItem> release(LockRequest request, long floor) {
        String name = request.name();
        int expiry = expirySeconds(request.leaseTime());
        AddedItems.Added added = addedItems.take(request.ownerToken());
        if (added == null) {
            return update(name, expiry, item -> item.owner().equals(request.ownerToken())
                    ? LockItem.free(Math.max(item.token(), floor)) : null, TRIES, null);
        }
        LockItem free = LockItem.free(Math.max(added.token(), floor));
        return servers.ready().thenCompose(client -> client.set(key(keyPrefix, name), free.encode(), expiry,
                added.cas())).thenCompose(set -> {
                    if (set == MemcacheStatus.OK) {
                        events.released(name, null);
                        return CompletableFuture.completedFuture(free);
                    }
                    return release(request, floor); // written since: owner-checked, the CAS is gone
                });
    }

    /** The floor takes the forcer's clock: the holder's local hand-offs may be above its item's token. */
    @Override
    public CompletionStage<Boolean> forceRelease(String name) {
        return update(name, FORCED_FLOOR_SECONDS, item -> item.isFree() ? null
                : LockItem.free(Math.max(item.token(), servers.clockMicros())), TRIES, null)
                .thenApply(Objects::nonNull);
    }

    @Override
    public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
        // A renewal writes the item: the CAS its acquire read is stale from then on.
        leases.forEach(lease -> addedItems.take(lease.request().ownerToken()));
        List<CompletableFuture<RenewalResult>> results = leases.stream().map(Lease::request).map(request -> update(
                request.name(), expirySeconds(request.leaseTime()), item -> item.owner().equals(request.ownerToken())
                        ? held(request, item.token()) : null, TRIES, null)
                .handle((renewed, failure) -> failure != null ? RenewalResult.ERROR
                        : renewed != null ? RenewalResult.RENEWED : RenewalResult.LOST).toCompletableFuture()).toList();
        return CompletableFuture.allOf(results.toArray(CompletableFuture[]::new))
                .thenApply(done -> results.stream().map(CompletableFuture::join).toList());
    }

    /** A lease ended by the writer's clock counts as free, although its item lives on until its expiry. */
    @Override
    public CompletionStage<Optional<LockInfo>> describe(String name) {
        return servers.ready().thenCompose(client -> client.get(key(keyPrefix, name))).thenApply(value -> {
            LockItem item = LockItem.decode(value);
            long remaining = item == null || item.isFree() ? 0 : item.leaseEndMicros() - servers.clockMicros();
            return item == null || remaining <= 0 ? Optional.empty() : Optional.of(new LockInfo(name, item.holder(),
                    item.token(), Duration.ofNanos(remaining * 1000), null));
        });
    }

    @Override
    public CompletionStage<StoreHealth> health() {
        return servers.ready().thenCompose(client -> client.get(keyPrefix + ":health")).handle((ok, failure) ->
                new StoreHealth(failure == null, failure == null ? Map.of("servers", servers.addresses())
                        : Map.of("servers", servers.addresses(), "error", "" + failure.getMessage())));
    }

    /**
     * Writes by CAS what {@code change} makes of the name's item (null: nothing), again when another write came
     * between; a freed name wakes this JVM's waiters at once (other JVMs' come back after their back-off).
     *
     * @param read the item read already (pipelined behind an add), for the first try; null to read it
     * @return the item written, or null
     */
    private CompletionStage<@Nullable LockItem> update(String name, int expiry,
            Function<LockItem, @Nullable LockItem> change, int tries,
            @Nullable CompletionStage<@Nullable GetResult<String>> read) {
        String key = key(keyPrefix, name);
        return servers.ready().thenCompose(client -> (read != null ? read : client.casGet(key)).thenCompose(found -> {
            LockItem item = found == null ? null : LockItem.decode(found.getValue());
            LockItem next = item == null ? null : change.apply(item);
            if (found == null || next == null) {
                return CompletableFuture.completedFuture(null);
            }
            return client.set(key, next.encode(), expiry, found.getCas()).thenCompose(set -> {
                if (set == MemcacheStatus.OK && next.isFree()) {
                    events.released(name, null);
                }
                // KEY_EXISTS, KEY_NOT_FOUND: another write came between
                return set == MemcacheStatus.OK ? CompletableFuture.completedFuture(next)
                        : (set == MemcacheStatus.KEY_EXISTS || set == MemcacheStatus.KEY_NOT_FOUND) && tries > 1
                        ? update(name, expiry, change, tries - 1, null) : failed(name, set);
            });
        }));
    }

    /** A full server ({@code -M}: out of memory rather than evicting) or an error fails the call. */
    private static <T> CompletableFuture<T> failed(String name, MemcacheStatus status) {
        return CompletableFuture.failedFuture(new LockUnavailableException("Memcached answered " + status
                + " for lock '" + name + "'"));
    }

    private LockItem held(LockRequest request, long token) {
        return new LockItem(token, servers.clockMicros() + request.leaseTime().toNanos() / 1000, request.ownerToken(),
                request.holder());
    }

    /** The lease in whole seconds rounded up, plus the grace that Memcached's lagging clock needs (class comment). */
    static int expirySeconds(Duration lease) {
        long seconds = (lease.toMillis() + 999) / 1000 + EXPIRY_GRACE_SECONDS;
        if (seconds > 2_592_000) { // beyond 30 days Memcached reads an expiry as a point in time
            throw new IllegalArgumentException("The Memcached store takes leases of up to 30 days: " + lease);
        }
        return (int) seconds;
    }

    /** A key is at most 250 bytes of printable ASCII without spaces: the name URL-encoded (one-to-one). */
    static String key(String keyPrefix, String name) {
        String key = keyPrefix + ":" + URLEncoder.encode(name, StandardCharsets.UTF_8);
        if (key.length() > 250) {
            throw new IllegalArgumentException("Lock name too long for a Memcached key (250 bytes): " + key);
        }
        return key;
    }

    @Override
    public void close() {
        addedItems.clear();
        servers.close();
    }
}
