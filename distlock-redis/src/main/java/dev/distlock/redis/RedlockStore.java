package dev.distlock.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockUnavailableException;
import dev.distlock.core.ClockDrift;
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
 * lease's validity, measured from before the first request, less the margin for clock drift ({@link ClockDrift}),
 * so the time spent acquiring counts against it. Otherwise it undoes the grants it got on every master and answers
 * busy after a random delay, so competing callers do not keep splitting the votes.</li>
 * <li>Every master is asked through the store SPI of its {@link RedisLockStore}, all at once. The votes are counted
 * until the outcome is decided or the vote deadline ({@value #VOTE_SHARE_PERCENT} % of the command timeout, so that
 * the decision reaches the engine, which waits the whole command timeout, as a decision): a frozen master must not
 * slow down every call, nor turn a busy lock into a failure.</li>
 * <li>The fencing token is the highest token of the granting masters; each master issues clock-based tokens.</li>
 * <li>The watchdog renews on every master; a lease is kept while a majority renews it. A release goes to all.</li>
 * <li>When so many masters fail that no majority can answer, the attempt fails closed.</li>
 * </ul>
 */
public class RedlockStore implements LockStore {

    /** The vote deadline, as a share of the command timeout. */
    static final int VOTE_SHARE_PERCENT = 75;

    private final RedlockConfig config;

    private final List<RedisLockStore> nodes;

    private final long voteNanos;

    private final List<LettuceConnectionFactory> ownFactories;

    /**
     * Per request, per master, what a cancel (or the next attempt there) must follow: the undo of its last attempt
     * after a busy answer (kept until the request attempts again or gives up), or its acquires while they are
     * unanswered after a grant.
     */
    private final Map<LockRequest, CompletableFuture<?>[]> pending = new ConcurrentHashMap<>();

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
        this.voteNanos = config.commandTimeout().toNanos() * VOTE_SHARE_PERCENT / 100;
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
     * Connects to every master now (a health check each, waited for at most the command timeout), so that the first
     * acquire does not pay for five connections. No release notifications: nobody is queued on the masters, waiters
     * re-check after a random delay.
     */
    @Override
    public void start(StoreEvents events) {
        CompletableFuture<?>[] connected = nodes.stream().map(node -> node.health().toCompletableFuture())
                .toArray(CompletableFuture[]::new);
        // A master that is down now is a failed vote later; locking works while a majority answers.
        CompletableFuture.allOf(connected).exceptionally(error -> null)
                .completeOnTimeout(null, config.commandTimeout().toNanos(), TimeUnit.NANOSECONDS).join();
    }

    @Override
    public CompletionStage<Attempt> attempt(LockRequest request, long remainingWaitMillis, boolean retry) {
        long started = System.nanoTime();
        // Only the acquiring thread attempts its request, so the previous attempt's undos are its own to take.
        CompletableFuture<?>[] previousUndo = pending.remove(request);
        CompletableFuture<?>[] sent = new CompletableFuture<?>[nodes.size()];
        List<CompletableFuture<Long>> asked = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            if (previousUndo != null && !previousUndo[i].isDone()) {
                // The previous attempt's undo has not been answered there (a frozen or partitioned master, or just
                // not yet): an acquire sent now could overtake it (while the connection reopens) or be deleted by it
                // (same owner token). Not asked this time: no grant there, but no failure either.
                sent[i] = previousUndo[i];
                continue;
            }
            CompletableFuture<Long> reply = nodes.get(i).attempt(request, 0, false).toCompletableFuture()
                    .thenApply(attempt -> attempt.isAcquired() ? attempt.fencingToken() : 0L);
            sent[i] = reply;
            asked.add(reply);
        }
        // Until every acquire is answered, a cancel (the engine's undo of a late answer) must follow them.
        pending.put(request, sent);
        CompletableFuture.allOf(asked.toArray(CompletableFuture[]::new))
                .whenComplete((done, error) -> pending.remove(request, sent));
        return RedlockVotes.collect(asked, voteNanos, config.quorum(), nodes.size() - asked.size())
                .thenApply(votes -> decide(request, started, votes, sent, previousUndo));
    }

    private Attempt decide(LockRequest request, long started, RedlockVotes votes, CompletableFuture<?>[] sent,
            CompletableFuture<?> @Nullable [] previousUndo) {
        long elapsed = System.nanoTime() - started;
        if (votes.granted() >= config.quorum() && elapsed < ClockDrift.validNanos(request.leaseTime())) {
            return Attempt.acquired(votes.highestToken());
        }
        // Undo on every master, each strictly after its own acquire (chained to its reply: an acquire retried as
        // EVAL after NOSCRIPT goes out late). The next attempt does not wait for the undos (a frozen master answers
        // only when the client times the command out): it asks again only the masters whose undo was answered, so
        // that on each master the undo lands before the next acquire of the same owner token.
        CompletableFuture<?>[] undo = new CompletableFuture<?>[nodes.size()];
        for (int i = 0; i < nodes.size(); i++) {
            if (previousUndo != null && sent[i] == previousUndo[i]) {
                undo[i] = previousUndo[i]; // not asked: still behind the earlier undo
                continue;
            }
            RedisLockStore node = nodes.get(i);
            undo[i] = sent[i].handle((answer, error) -> node.cancel(request)).thenCompose(cancelled -> cancelled);
        }
        if (votes.failed() > nodes.size() - config.quorum()) {
            throw new LockUnavailableException("Only " + (nodes.size() - votes.failed()) + " of " + nodes.size()
                    + " Redlock masters answered lock '" + request.name() + "' within distlock.command-timeout; a "
                    + "majority of " + config.quorum() + " is needed");
        }
        pending.put(request, undo);
        // A random delay, so that callers that split the votes do not collide again at once.
        return Attempt.busy(ThreadLocalRandom.current().nextLong(20, 120));
    }

    /** Tokens are at least the server clock in microseconds (see {@code acquire.lua}). */
    @Override
    public boolean tokensFollowClock() {
        return true;
    }

    /** Undoes the request on every master, there after its last acquire or undo. */
    @Override
    public CompletionStage<Void> cancel(LockRequest request) {
        CompletableFuture<?>[] before = pending.remove(request);
        CompletableFuture<?>[] undone = new CompletableFuture<?>[nodes.size()];
        for (int i = 0; i < nodes.size(); i++) {
            RedisLockStore node = nodes.get(i);
            undone[i] = before == null ? node.cancel(request).toCompletableFuture()
                    : before[i].handle((done, error) -> node.cancel(request)).thenCompose(cancelled -> cancelled);
        }
        return CompletableFuture.allOf(undone);
    }

    @Override
    public CompletionStage<ReleaseResult> release(Lease lease) {
        List<CompletableFuture<Long>> replies = new ArrayList<>(nodes.size());
        for (RedisLockStore node : nodes) {
            replies.add(node.release(lease).toCompletableFuture()
                    .thenApply(result -> result == ReleaseResult.RELEASED ? 1L : 0L));
        }
        return RedlockVotes.collect(replies, voteNanos, config.quorum(), 0).thenApply(votes -> {
            if (votes.granted() > 0) {
                return ReleaseResult.RELEASED;
            }
            if (votes.failed() > nodes.size() - config.quorum()) {
                throw new LockUnavailableException("Only " + (nodes.size() - votes.failed()) + " of " + nodes.size()
                        + " Redlock masters answered the release of lock '" + lease.request().name() + "'");
            }
            return ReleaseResult.EXPIRED;
        });
    }

    /**
     * Renews on every master; a lease is renewed once a majority renewed it, lost once a majority can no longer
     * renew it, and an error when the masters that answered by the vote deadline decide neither.
     */
    @Override
    public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
        RenewalVotes votes = new RenewalVotes(leases.size());
        for (RedisLockStore node : nodes) {
            node.renew(leases).whenComplete(votes::add);
        }
        return votes.decided.completeOnTimeout(null, voteNanos, TimeUnit.NANOSECONDS)
                .thenApply(decided -> votes.results());
    }

    /** The masters' renewal answers, per lease. */
    private final class RenewalVotes {

        final CompletableFuture<@Nullable Void> decided = new CompletableFuture<>();

        private final int[] renewed;

        private final int[] lost;

        private int answered;

        RenewalVotes(int leases) {
            this.renewed = new int[leases];
            this.lost = new int[leases];
        }

        synchronized void add(@Nullable List<RenewalResult> results, @Nullable Throwable error) {
            answered++;
            if (results != null && error == null) {
                for (int i = 0; i < renewed.length; i++) {
                    if (results.get(i) == RenewalResult.RENEWED) {
                        renewed[i]++;
                    }
                    else if (results.get(i) == RenewalResult.LOST) {
                        lost[i]++;
                    }
                }
            }
            boolean allDecided = true;
            for (int i = 0; i < renewed.length && allDecided; i++) {
                allDecided = result(i) != RenewalResult.ERROR;
            }
            if (allDecided || answered == nodes.size()) {
                decided.complete(null);
            }
        }

        synchronized List<RenewalResult> results() {
            RenewalResult[] results = new RenewalResult[renewed.length];
            Arrays.setAll(results, this::result);
            return List.of(results);
        }

        private RenewalResult result(int lease) {
            if (renewed[lease] >= config.quorum()) {
                return RenewalResult.RENEWED;
            }
            if (lost[lease] > nodes.size() - config.quorum()) {
                return RenewalResult.LOST; // a majority can no longer renew it
            }
            return RenewalResult.ERROR;
        }
    }

    @Override
    public CompletionStage<StoreHealth> health() {
        List<CompletableFuture<StoreHealth>> checks = new ArrayList<>(nodes.size());
        for (RedisLockStore node : nodes) {
            checks.add(node.health().toCompletableFuture().completeOnTimeout(new StoreHealth(false,
                    Map.of("error", "no answer")), voteNanos, TimeUnit.NANOSECONDS));
        }
        return CompletableFuture.allOf(checks.toArray(CompletableFuture[]::new)).handle((done, error) -> {
            Map<String, Object> details = new LinkedHashMap<>();
            int up = 0;
            for (int i = 0; i < nodes.size(); i++) {
                CompletableFuture<StoreHealth> check = checks.get(i);
                boolean nodeUp = !check.isCompletedExceptionally() && check.join().up();
                up += nodeUp ? 1 : 0;
                details.put("node" + i, nodeUp ? "UP" : "DOWN");
            }
            details.put("quorum", config.quorum());
            details.put("nodesUp", up);
            return new StoreHealth(up >= config.quorum(), details);
        });
    }

    @Override
    public void close() {
        nodes.forEach(RedisLockStore::close);
        ownFactories.forEach(LettuceConnectionFactory::destroy);
    }

    @Override
    public String toString() {
        return "RedlockStore[" + nodes.size() + " masters, quorum " + config.quorum() + "]";
    }
}
