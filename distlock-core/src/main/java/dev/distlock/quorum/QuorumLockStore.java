package dev.distlock.quorum;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;

import dev.distlock.LockInfo;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.ClockDrift;
import dev.distlock.quorum.Ballot.Answer;
import dev.distlock.quorum.Ballot.Count;
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
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A lock store over several independent stores (its nodes): a lock is held when a majority of them granted it, as
 * Redlock holds a lock on a majority of Redis masters. It works through the {@link LockStore} interface alone, so
 * any store whose leases expire can be a node, and locking goes on while a minority of the nodes is down.
 * <ul>
 * <li>An attempt asks every node at once, as a last attempt ({@link Waiting#LAST_TRY}: nobody queues as a
 * waiter on a node, since reservations on different nodes could go to different waiters and nobody would get a
 * majority). It is granted when a majority granted within the lease's validity
 * ({@link ClockDrift#validNanos(Duration)}), measured from before the first request, so the time spent acquiring
 * counts against it. The fencing token is the highest of the granting nodes' tokens; the holder asking again while
 * its grant surely holds gets that same token, whichever majority answers ({@link GrantedTokens}).</li>
 * <li>Otherwise every node's grant is undone, each undo strictly after that node's own attempt (a late grant is
 * undone too), and the answer is busy after a random delay, so that callers that split the votes do not collide
 * again at once: under 20 ms when the request won votes, 20 to 120 ms when it won none. The next attempt of the
 * same request does not ask a node that has not answered its undo yet: the attempt could overtake the undo, or be
 * deleted by it (same owner token).</li>
 * <li>When so many nodes failed (or did not answer within {@code commandTimeout} plus their own
 * {@link StoreTraits#answerAllowance()}) that no majority can answer, the call fails closed with a
 * {@link LockUnavailableException} that says how many of how many nodes answered.</li>
 * <li>A release goes to every node: released when any node released it, failed when no majority answered, else
 * expired. Renewals go to every node: a lease is renewed with a majority, lost when a majority can no longer renew
 * it, else unknown (an error). Health is up with a majority of healthy nodes.</li>
 * </ul>
 * Nobody queues on the nodes, but a node's release wakes every waiter of the name ({@link NodeEvents}; a Redlock
 * master tells of one). Fencing tokens increase across holders when the nodes' tokens follow their clocks (keep the
 * nodes' clocks in step) or carry on from the released lease's token.
 * <p>
 * Open for extension: a subclass may do store-specific work in {@link #start} and {@link #close} (e.g. connect
 * every node up front, close connections it made), calling {@code super}.
 */
public class QuorumLockStore implements LockStore {

    /**
     * The time beyond a vote's deadline that its answer may take to reach the engine (the vote is decided by a timer
     * on a busy machine), so that the engine's own bound never races the vote's.
     */
    static final Duration VOTE_MARGIN = Duration.ofMillis(250);

    private static final Logger log = LoggerFactory.getLogger(QuorumLockStore.class);

    private final QuorumConfig config;

    private final List<LockStore> nodes;

    private final int quorum;

    private final long timeoutNanos;

    /** Per node, how long a vote waits for its attempt: the command timeout plus the node's allowance. */
    private final long[] attemptBoundNanos;

    private final StoreTraits traits;

    private final RequestOrder order = new RequestOrder();

    private final GrantedTokens granted = new GrantedTokens();

    /**
     * @param config the nodes and the command timeout
     */
    public QuorumLockStore(QuorumConfig config) {
        this.config = config;
        this.nodes = config.nodes();
        this.quorum = config.quorum();
        this.timeoutNanos = config.commandTimeout().toNanos();
        this.attemptBoundNanos = new long[nodes.size()];
        List<StoreTraits> nodeTraits = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            nodeTraits.add(nodes.get(i).traits()); // read once, as the engine does
            attemptBoundNanos[i] = timeoutNanos + nodeTraits.get(i).answerAllowance().toNanos();
        }
        this.traits = QuorumTraits.derive(nodeTraits, VOTE_MARGIN);
    }

    /** @return the settings */
    protected final QuorumConfig config() {
        return config;
    }

    /** @return the nodes, in the order of the configuration */
    protected final List<LockStore> nodes() {
        return nodes;
    }

    /** Starts every node; a node's release wakes every waiter of the name (see the class comment). */
    @Override
    public void start(StoreEvents events) {
        nodes.forEach(node -> node.start(new NodeEvents(events)));
    }

    @Override
    public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
        long started = System.nanoTime();
        // Attempts of one request come one after the other: the previous calls are this attempt's to order after.
        CompletableFuture<?>[] previous = order.take(request);
        List<@Nullable CompletableFuture<Attempt>> sent = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            // Not asked while it has not answered the previous call: no grant there, but no failure either.
            sent.add(RequestOrder.answered(previous, i) ? ask(i, request, sent) : null);
        }
        return Ballot.count(sent, Answer::of, quorum, attemptBoundNanos)
                .thenApply(count -> decide(request, started, previous, sent, count));
    }

    /**
     * @return the node's answer to a last attempt (no queueing); a node refusing the request outright (an
     *         {@link IllegalArgumentException}, e.g. a name it cannot store) refuses it for the quorum: what was
     *         sent to the other nodes is undone and the exception is thrown
     */
    private CompletableFuture<Attempt> ask(int node, LockRequest request,
            List<@Nullable CompletableFuture<Attempt>> sentBefore) {
        CompletionStage<Attempt> answer;
        try {
            answer = nodes.get(node).attempt(request, Waiting.LAST_TRY);
        }
        catch (IllegalArgumentException ex) {
            for (int i = 0; i < sentBefore.size(); i++) {
                CompletableFuture<Attempt> attempt = sentBefore.get(i);
                if (attempt != null) {
                    undoAfter(attempt, i, request);
                }
            }
            throw ex;
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex); // a failed vote
        }
        return RequestOrder.send(() -> answer);
    }

    private Attempt decide(LockRequest request, long started, CompletableFuture<?> @Nullable [] previous,
            List<@Nullable CompletableFuture<Attempt>> sent, Count count) {
        boolean inTime = System.nanoTime() - started < ClockDrift.validNanos(request.leaseTime());
        CompletableFuture<?>[] lastCalls = new CompletableFuture<?>[nodes.size()];
        if (count.yes() >= quorum && inTime) {
            for (int i = 0; i < nodes.size(); i++) {
                CompletableFuture<Attempt> attempt = sent.get(i);
                // A node not waited for may still grant: a release or undo must not overtake that attempt.
                lastCalls[i] = (attempt != null) ? attempt : RequestOrder.lastCall(previous, i);
            }
            order.remember(request, lastCalls);
            return Attempt.granted(granted.grant(request, count.highestToken(), started));
        }
        // Undo on every node, each strictly after its own attempt (chained to its answer, which may still come).
        // The next attempt does not wait for the undos (a frozen node answers only when its client gives up): it
        // asks again only the nodes that answered theirs.
        for (int i = 0; i < nodes.size(); i++) {
            CompletableFuture<Attempt> attempt = sent.get(i);
            lastCalls[i] = (attempt != null) ? undoAfter(attempt, i, request) : RequestOrder.lastCall(previous, i);
        }
        order.remember(request, lastCalls);
        if (count.failed() > nodes.size() - quorum) {
            throw new LockUnavailableException("Only " + (nodes.size() - count.failed()) + " of " + nodes.size()
                    + " nodes of " + this + " answered lock '" + request.name() + "' within the command timeout ("
                    + config.commandTimeout().toMillis() + " ms); a majority of " + quorum + " is needed");
        }
        // Random, so that split callers do not collide again at once; short after a split (the undos may free the
        // lock), longer when no vote was won (the lock is held: its release wakes the waiters where nodes tell).
        return Attempt.busy(Duration.ofMillis(count.yes() > 0 ? ThreadLocalRandom.current().nextLong(1, 20)
                : ThreadLocalRandom.current().nextLong(20, 121)));
    }

    /** @return completes (normally) once the node answered the undo sent after the attempt was answered */
    private CompletableFuture<Void> undoAfter(CompletableFuture<Attempt> attempt, int node, LockRequest request) {
        CompletableFuture<Void> undone = new CompletableFuture<>();
        attempt.whenComplete((answer, error) -> RequestOrder.send(() -> nodes.get(node).cancel(request))
                .whenComplete((done, undoError) -> undone.complete(null)));
        return undone;
    }

    /** Undoes the request on every node, each after its last call there; fails when no majority answered. */
    @Override
    public CompletionStage<Void> cancel(LockRequest request) {
        granted.forget(request);
        CompletableFuture<?>[] previous = order.take(request);
        List<CompletableFuture<Void>> undos = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            LockStore node = nodes.get(i);
            undos.add(RequestOrder.after(previous, i, () -> node.cancel(request)));
        }
        order.remember(request, undos.toArray(CompletableFuture<?>[]::new));
        return CompletableFuture.allOf(undos.toArray(CompletableFuture<?>[]::new)).handle((done, error) -> {
            long failed = undos.stream().filter(CompletableFuture::isCompletedExceptionally).count();
            if (failed > nodes.size() - quorum) {
                throw new LockUnavailableException("Only " + (nodes.size() - failed) + " of " + nodes.size()
                        + " nodes of " + this + " undid a request for lock '" + request.name() + "'");
            }
            return null;
        });
    }

    /**
     * Releases on every node, each after the request's last call there was answered.
     *
     * @return released when any node released it, expired when a majority answered and none did; fails when no
     *         majority answered
     */
    @Override
    public CompletionStage<ReleaseResult> release(Lease lease) {
        LockRequest request = lease.request();
        granted.forget(request);
        CompletableFuture<?>[] previous = order.take(request);
        List<CompletableFuture<ReleaseResult>> sent = new ArrayList<>(nodes.size());
        for (int i = 0; i < nodes.size(); i++) {
            LockStore node = nodes.get(i);
            sent.add(RequestOrder.after(previous, i, () -> node.release(lease)));
        }
        order.remember(request, sent.toArray(CompletableFuture<?>[]::new));
        long[] bounds = new long[nodes.size()];
        Arrays.fill(bounds, timeoutNanos);
        return Ballot.count(sent, Answer::of, quorum, bounds).thenApply(count -> {
            if (count.yes() > 0) {
                return ReleaseResult.RELEASED;
            }
            if (count.failed() > nodes.size() - quorum) {
                throw new LockUnavailableException("Only " + (nodes.size() - count.failed()) + " of "
                        + nodes.size() + " nodes of " + this + " answered the release of lock '" + request.name()
                        + "' within the command timeout (" + config.commandTimeout().toMillis() + " ms)");
            }
            return ReleaseResult.EXPIRED;
        });
    }

    /** Force-releases on every node, and counts ({@link ForceReleaseVote}). */
    @Override
    public CompletionStage<Boolean> forceRelease(String name) {
        return ForceReleaseVote.send(nodes, name, quorum, config.commandTimeout(), toString());
    }

    /** Held where a majority of the nodes name the same holder ({@link QuorumDescription}). */
    @Override
    public CompletionStage<Optional<LockInfo>> describe(String name) {
        return QuorumDescription.describe(nodes, name, quorum, config.commandTimeout(), toString());
    }

    @Override
    public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
        return RenewalTally.renew(nodes, leases, quorum, timeoutNanos, granted);
    }

    /** @return up when a majority of the nodes is up (each waited for at most the command timeout), per node */
    @Override
    public CompletionStage<StoreHealth> health() {
        return QuorumHealth.check(nodes, quorum, config.commandTimeout());
    }

    /** @return the traits derived from the nodes' when the quorum was built ({@link QuorumTraits#derive}) */
    @Override
    public StoreTraits traits() {
        return traits;
    }

    /** Closes every node, also when one of them fails to close. */
    @Override
    public void close() {
        for (LockStore node : nodes) {
            try {
                node.close();
            }
            catch (RuntimeException ex) {
                log.warn("Could not close quorum node {}", node, ex);
            }
        }
    }

    @Override
    public String toString() {
        return getClass().getSimpleName() + "[" + nodes.size() + " nodes, quorum " + quorum + "]";
    }
}
