package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockUnavailableException;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.StoreHealth;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Redlock: a lock is held when more than half of N independent Redis masters granted it. A store that wraps one
 * {@link RedisLockStore} per master and asks all of them at once.
 * <ul>
 * <li>An attempt asks every master (without queueing as a waiter: reservations on different masters could go to
 * different waiters, and nobody would get a majority) and succeeds with a majority of grants received within the
 * lease's validity. The engine measures the validity from before the first request, less a margin for clock drift
 * (1 % + 2 ms), so the time spent acquiring counts against it. Otherwise it undoes the grants it got on every master
 * and answers busy after a random delay, so competing callers do not keep splitting the votes.</li>
 * <li>The fencing token is the highest token of the granting masters; each master issues clock-based tokens.</li>
 * <li>The watchdog renews on every master; a lease is kept while a majority renews it. A release goes to all.</li>
 * <li>When so many masters fail that no majority can answer, the attempt fails closed.</li>
 * </ul>
 */
public class RedlockStore implements LockStore {

    private final RedlockConfig config;

    private final List<RedisLockStore> nodes;

    private final long timeoutNanos;

    /** One thread per master for the watchdog's renewals and health checks, which wait on every master at once. */
    private final ExecutorService fanOut;

    private final List<LettuceConnectionFactory> ownFactories;

    /**
     * Per request that got a busy answer and may attempt again, per master, the undo of its last attempt there. Removed
     * when the request attempts again, gives up ({@link #cancel}) or fails.
     */
    private final Map<LockRequest, CompletableFuture<?>[]> undoing = new ConcurrentHashMap<>();

    /**
     * @param config the settings
     * @param nodes one store per master, in the order of {@code config.nodes()}
     */
    public RedlockStore(RedlockConfig config, List<RedisLockStore> nodes) {
        this(config, nodes, List.of());
    }

    private RedlockStore(RedlockConfig config, List<RedisLockStore> nodes, List<LettuceConnectionFactory> factories) {
        if (nodes.size() != config.nodes().size()) {
            throw new IllegalArgumentException("One store per Redlock node: " + config.nodes().size() + " nodes, "
                    + nodes.size() + " stores");
        }
        this.config = config;
        this.nodes = List.copyOf(nodes);
        this.ownFactories = List.copyOf(factories);
        this.timeoutNanos = config.commandTimeout().toNanos();
        AtomicInteger count = new AtomicInteger();
        this.fanOut = Executors.newFixedThreadPool(nodes.size(), runnable -> {
            Thread thread = new Thread(runnable, "distlock-redlock-" + count.incrementAndGet());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * Connects to every master of {@code config.nodes()} with a Lettuce connection factory of its own (closed with
     * the store).
     *
     * @param config the settings
     * @return the store
     */
    public static RedlockStore connect(RedlockConfig config) {
        List<LettuceConnectionFactory> factories = new ArrayList<>();
        List<RedisLockStore> stores = new ArrayList<>();
        for (String node : config.nodes()) {
            LettuceConnectionFactory factory = RedlockNodes.connectionFactory(node, config.commandTimeout());
            factories.add(factory);
            stores.add(new RedisLockStore(factory, config.nodeConfig()));
        }
        return new RedlockStore(config, stores, factories);
    }

    /**
     * Connects to every master now (waiting at most the command timeout), so that the first acquire does not pay
     * for five connections. No release notifications: nobody is queued on the masters, waiters re-check after a
     * random delay.
     */
    @Override
    public void start(StoreEvents events) {
        CompletableFuture<?>[] connected = nodes.stream().map(RedisLockStore::connect)
                .toArray(CompletableFuture[]::new);
        try {
            CompletableFuture.allOf(connected).get(timeoutNanos, java.util.concurrent.TimeUnit.NANOSECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (java.util.concurrent.ExecutionException | java.util.concurrent.TimeoutException ex) {
            // A master that is down now is a failed vote later; locking works while a majority answers.
        }
    }

    @Override
    public Attempt attempt(LockRequest request, long remainingWaitMillis, boolean retry) {
        LockKeys keys = LockKeys.of(config.keyPrefix(), request.name());
        long started = System.nanoTime();
        // Only the acquiring thread attempts its request, so the previous attempt's undos are its own to take.
        CompletableFuture<?>[] previousUndo = undoing.remove(request);
        List<@Nullable CompletableFuture<Object>> replies = new ArrayList<>(nodes.size());
        List<CompletableFuture<Object>> asked = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            if (previousUndo != null && !previousUndo[i].isDone()) {
                // The previous attempt's undo has not been answered there (a frozen or partitioned master, or just
                // not yet): an acquire sent now could overtake it (while the connection reopens) or be deleted by it
                // (same owner token). Not asked this time: no grant there, but no failure either.
                replies.add(null);
            }
            else {
                CompletableFuture<Object> reply = nodes.get(i).acquireAsync(request, keys, 0, false);
                replies.add(reply);
                asked.add(reply);
            }
        }
        RedlockVotes votes = RedlockVotes.collect(asked, started + timeoutNanos, config.quorum(),
                nodes.size() - asked.size());
        long elapsed = System.nanoTime() - started;
        if (votes.granted >= config.quorum() && elapsed < validityNanos(request)) {
            return Attempt.acquired(votes.highestToken);
        }
        // Undo on every master, each strictly after its own acquire (chained to its reply: an acquire retried as
        // EVAL after NOSCRIPT goes out late). The next attempt does not wait for the undos (a frozen master answers
        // only when the client times the command out): it asks again only the masters whose undo was answered, so
        // that on each master the undo lands before the next acquire of the same owner token.
        CompletableFuture<?>[] undo = new CompletableFuture<?>[nodes.size()];
        for (int i = 0; i < nodes.size(); i++) {
            CompletableFuture<Object> reply = replies.get(i);
            if (reply == null) {
                undo[i] = Objects.requireNonNull(previousUndo)[i]; // not asked: still behind the earlier undo
                continue;
            }
            RedisLockStore node = nodes.get(i);
            undo[i] = reply.handle((answer, error) -> node.cancelAsync(request, keys))
                    .thenCompose(cancelled -> cancelled);
        }
        if (votes.failed > nodes.size() - config.quorum()) {
            throw new LockUnavailableException("Only " + (nodes.size() - votes.failed) + " of " + nodes.size()
                    + " Redlock masters answered lock '" + request.name() + "' within distlock.command-timeout; a "
                    + "majority of " + config.quorum() + " is needed");
        }
        undoing.put(request, undo);
        // A random delay, so that callers that split the votes do not collide again at once.
        return Attempt.busy(ThreadLocalRandom.current().nextLong(20, 120));
    }

    private static long validityNanos(LockRequest request) {
        long lease = request.leaseTime().toNanos();
        return lease - Math.min(lease / 100 + 2_000_000L, lease / 10);
    }

    /** Tokens are at least the server clock in microseconds (see {@code acquire.lua}). */
    @Override
    public boolean tokensFollowClock() {
        return true;
    }

    @Override
    public void cancel(LockRequest request) {
        LockKeys keys = LockKeys.of(config.keyPrefix(), request.name());
        CompletableFuture<?>[] previousUndo = undoing.remove(request);
        for (int i = 0; i < nodes.size(); i++) {
            RedisLockStore node = nodes.get(i);
            if (previousUndo == null) {
                node.cancelAsync(request, keys);
            }
            else {
                previousUndo[i].handle((done, error) -> node.cancelAsync(request, keys));
            }
        }
    }

    @Override
    public ReleaseResult release(Lease lease) {
        List<CompletableFuture<Object>> replies = new ArrayList<>(nodes.size());
        for (RedisLockStore node : nodes) {
            replies.add(node.releaseAsync(lease));
        }
        RedlockVotes votes = RedlockVotes.collect(replies, System.nanoTime() + timeoutNanos, config.quorum());
        if (votes.granted > 0) {
            return ReleaseResult.RELEASED;
        }
        if (votes.failed > nodes.size() - config.quorum()) {
            throw new LockUnavailableException("Only " + (nodes.size() - votes.failed) + " of " + nodes.size()
                    + " Redlock masters answered the release of lock '" + lease.request().name() + "'");
        }
        return ReleaseResult.EXPIRED;
    }

    @Override
    public List<RenewalResult> renew(List<? extends Lease> leases) {
        List<CompletableFuture<List<RenewalResult>>> perNode = new ArrayList<>(nodes.size());
        for (RedisLockStore node : nodes) {
            perNode.add(CompletableFuture.supplyAsync(() -> node.renew(leases), fanOut));
        }
        int[] renewed = new int[leases.size()];
        int[] lost = new int[leases.size()];
        for (CompletableFuture<List<RenewalResult>> answer : perNode) {
            List<RenewalResult> results = answer.join(); // each node bounds itself by the command timeout
            for (int i = 0; i < leases.size(); i++) {
                if (results.get(i) == RenewalResult.RENEWED) {
                    renewed[i]++;
                }
                else if (results.get(i) == RenewalResult.LOST) {
                    lost[i]++;
                }
            }
        }
        List<RenewalResult> results = new ArrayList<>(leases.size());
        for (int i = 0; i < leases.size(); i++) {
            if (renewed[i] >= config.quorum()) {
                results.add(RenewalResult.RENEWED);
            }
            else if (lost[i] > nodes.size() - config.quorum()) {
                results.add(RenewalResult.LOST); // a majority can no longer renew it
            }
            else {
                results.add(RenewalResult.ERROR);
            }
        }
        return results;
    }

    @Override
    public StoreHealth health(Duration timeout) {
        List<CompletableFuture<StoreHealth>> checks = new ArrayList<>(nodes.size());
        for (RedisLockStore node : nodes) {
            checks.add(CompletableFuture.supplyAsync(() -> node.health(timeout), fanOut));
        }
        Map<String, Object> details = new LinkedHashMap<>();
        int up = 0;
        for (int i = 0; i < nodes.size(); i++) {
            StoreHealth health = checks.get(i).join();
            up += health.up() ? 1 : 0;
            details.put("node" + i, health.up() ? "UP" : "DOWN");
        }
        details.put("quorum", config.quorum());
        details.put("nodesUp", up);
        return new StoreHealth(up >= config.quorum(), details);
    }

    @Override
    public void close() {
        fanOut.shutdownNow();
        nodes.forEach(RedisLockStore::close);
        ownFactories.forEach(LettuceConnectionFactory::destroy);
    }

    @Override
    public String toString() {
        return "RedlockStore[" + nodes.size() + " masters, quorum " + config.quorum() + "]";
    }
}
