package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.distlock.LockUnavailableException;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.Waiting;
import org.jspecify.annotations.Nullable;

/**
 * The attempts of a {@link ZooKeeperLockStore}: a request's node in its name's line of sequential ephemeral nodes;
 * the head (or, for permits, the first {@code n}) holds, the others watch their predecessor (or the line).
 */
final class LineAttempts {

    /** A waiter watches its predecessor; this only bounds the engine's fallback re-check. */
    private static final long RECHECK_MILLIS = 500;

    private static final Duration RECHECK = Duration.ofMillis(RECHECK_MILLIS);

    /** Rounds of one attempt (a node deleted behind its back, a predecessor gone meanwhile) before it answers busy. */
    private static final int MAX_ROUNDS = 8;

    private final ZooKeeperCalls calls;

    private final NodeRegistry registry;

    private final LockNodeCalls nodes;

    LineAttempts(ZooKeeperCalls calls, NodeRegistry registry, LockNodeCalls nodes) {
        this.calls = calls;
        this.registry = registry;
        this.nodes = nodes;
    }

    /**
     * @param request the request
     * @param waiting whether it queues
     * @return granted with the node's czxid, or busy (a last try leaves the line first)
     */
    CompletableFuture<Attempt> attempt(LockRequest request, Waiting waiting) {
        LockNode node = registry.byOwner(request.ownerToken());
        long session = calls.currentSession();
        if (node != null && session != 0 && node.sessionId != session) {
            registry.forget(node); // made in a session that ended: ZooKeeper deleted it
            node = null;
        }
        // A failed attempt leaves its node in line; the engine's cancel, chained after it, deletes it.
        return attempt(request, waiting, node, null, 0);
    }

    /**
     * One round: queue (once), look where the node stands, and hold, leave the line or watch the predecessor. A
     * round starts again when the node was deleted behind the request's back or its predecessor went meanwhile.
     */
    private CompletableFuture<Attempt> attempt(LockRequest request, Waiting waiting,
            @Nullable LockNode known, @Nullable List<String> knownChildren, int round) {
        if (round == MAX_ROUNDS) {
            return CompletableFuture.completedFuture(Attempt.busy(Duration.ofMillis(1)));
        }
        String what = "acquire '" + request.name() + "'";
        CompletableFuture<LockNodeCalls.Created> queued = (known != null)
                ? CompletableFuture.completedFuture(new LockNodeCalls.Created(known, knownChildren))
                : nodes.create(request, what);
        return queued.thenCompose(created -> {
            LockNode node = created.node();
            List<String> listed = created.children();
            CompletableFuture<List<String>> children = (listed != null) ? CompletableFuture.completedFuture(listed)
                    : nodes.list(node, what);
            return children.thenCompose(current -> judge(request, waiting, node, current, round));
        });
    }

    /** Acts on where the node stands in the listed line. */
    private CompletableFuture<Attempt> judge(LockRequest request, Waiting waiting, LockNode node,
            List<String> children, int round) {
        QueuePosition position = QueuePosition.of(children, node.name);
        return switch (position.standing()) {
            case GONE -> { // deleted behind our back while waiting: queue again
                registry.forget(node);
                yield attempt(request, waiting, null, null, round + 1);
            }
            case MISMATCHED -> // out of line before the caller hears of it, so that a corrected retry finds no trace
                    cancel(request).thenCompose(left -> CompletableFuture.<Attempt>failedFuture(
                            request.permitsMismatch(position.heldWith()))).toCompletableFuture();
            case GRANTED -> CompletableFuture.completedFuture(grant(node, "acquire '" + request.name() + "'"));
            case WAITING -> wait(request, waiting, node, node.lockPath + "/" + position.predecessor(),
                    round);
            case WAITING_FOR_A_PERMIT -> waitForAPermit(request, waiting, node, round);
        };
    }

    private CompletableFuture<Attempt> wait(LockRequest request, Waiting waiting, LockNode node,
            String predecessor, int round) {
        if (waiting instanceof Waiting.LastTry) { // a last (or only) attempt: leave the line now
            return cancel(request).thenApply(left -> Attempt.busy(RECHECK)).toCompletableFuture();
        }
        return nodes.watchPredecessor(node, predecessor, "acquire '" + request.name() + "'")
                .thenCompose(watching -> watching
                        ? CompletableFuture.completedFuture(busyFor(waiting))
                        : attempt(request, waiting, node, null, round + 1)); // it went: look again
    }

    /**
     * Watches the line and judges the node again on the listing that set the watch: a holder that left between
     * the first listing and the watch would otherwise wake nobody.
     */
    private CompletableFuture<Attempt> waitForAPermit(LockRequest request, Waiting waiting, LockNode node,
            int round) {
        if (waiting instanceof Waiting.LastTry) { // a last (or only) attempt: leave the line now
            return cancel(request).thenApply(left -> Attempt.busy(RECHECK)).toCompletableFuture();
        }
        String what = "acquire '" + request.name() + "'";
        return nodes.watchLine(node, what).thenCompose(children -> {
            QueuePosition position = QueuePosition.of(children, node.name);
            if (position.standing() == QueuePosition.Standing.WAITING_FOR_A_PERMIT) {
                return CompletableFuture.completedFuture(busyFor(waiting));
            }
            registry.stopWaiting(node);
            return judge(request, waiting, node, children, round + 1);
        });
    }

    private Attempt grant(LockNode node, String what) {
        if (registry.byOwner(node.owner()) != node) {
            throw new LockUnavailableException("The ZooKeeper session ended during the attempt: cannot " + what);
        }
        registry.stopWaiting(node);
        node.held = true;
        nodes.watchHeld(node);
        return Attempt.granted(node.czxid);
    }

    /** Deletes the request's node, waiting or held. */
    CompletableFuture<Void> cancel(LockRequest request) {
        LockNode node = registry.byOwner(request.ownerToken());
        if (node != null && registry.forget(node)) {
            return nodes.deleteQuietly(node.path);
        }
        return CompletableFuture.completedFuture(null);
    }

    /** Busy while the watch waits for the line to move: re-checked after {@link #RECHECK} at most. */
    private static Attempt busyFor(Waiting waiting) {
        return Attempt.busy(waiting.remaining().compareTo(RECHECK) < 0 ? waiting.remaining() : RECHECK);
    }
}
