package dev.distlock.quorum;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.distlock.LockUnavailableException;
import dev.distlock.quorum.Ballot.Answer;
import dev.distlock.quorum.Ballot.Vote;
import dev.distlock.spi.LockStore;

/**
 * An operator's force release on a {@link QuorumLockStore}: sent to every node, and counted.
 */
final class ForceReleaseVote {

    private ForceReleaseVote() {
    }

    /**
     * @param nodes the nodes
     * @param name the lock name
     * @param quorum the majority
     * @param commandTimeout how long each node's answer is waited for
     * @param quorumName the quorum, for messages
     * @return true when a node had a holder and no majority of the nodes was free, false when a majority was
     *         free (a holder left on a minority only is deleted all the same); fails when no majority answered
     */
    static CompletionStage<Boolean> send(List<LockStore> nodes, String name, int quorum, Duration commandTimeout,
            String quorumName) {
        List<CompletableFuture<Boolean>> sent = new ArrayList<>(nodes.size());
        for (LockStore node : nodes) {
            sent.add(RequestOrder.send(() -> node.forceRelease(name)));
        }
        long[] bounds = new long[nodes.size()];
        Arrays.fill(bounds, commandTimeout.toNanos());
        return Ballot.count(sent, held -> Answer.of(held ? Vote.YES : Vote.NO), quorum, bounds).thenApply(count -> {
            // Held means held on a majority: a grant left on a minority (a late grant whose undo is still on its
            // way, a release that has not reached every node yet) is cleared, but was no lock. With nodes down, a
            // lock released somewhere and not shown free by a majority counts as held.
            if (count.yes() > 0 && count.no() < quorum) {
                return true;
            }
            if (count.failed() > nodes.size() - quorum) {
                throw new LockUnavailableException("Only " + (nodes.size() - count.failed()) + " of "
                        + nodes.size() + " nodes of " + quorumName + " answered the force release of lock '" + name
                        + "' within the command timeout (" + commandTimeout.toMillis() + " ms)");
            }
            return false;
        });
    }
}
