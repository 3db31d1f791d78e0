package dev.distlock.quorum;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import dev.distlock.LockInfo;
import dev.distlock.LockUnavailableException;
import dev.distlock.spi.LockStore;

/**
 * Who holds a name of a {@link QuorumLockStore}, asked of every node. A lock is held where a majority granted it,
 * so it is described only when a majority of the nodes name the same holder: with the highest of their fencing
 * tokens (the quorum's token is the highest of the granting nodes', so this is at least the holder's own: a node
 * that granted after the vote was counted may have raised it), and with the lease remaining on that
 * majority (the quorum-th longest: the lock holds while a majority does). A holder left on a minority (a grant
 * being undone, a release on its way) is no lock: the name is free. Nobody queues on the nodes: no waiters.
 * Fails closed when fewer than a majority answered within the command timeout.
 */
final class QuorumDescription {

    private QuorumDescription() {
    }

    /**
     * @param nodes the nodes
     * @param name the lock name
     * @param quorum the majority
     * @param commandTimeout how long each node's answer is waited for
     * @param quorumName the quorum, for messages
     * @return the holder on a majority, or empty
     */
    static CompletionStage<Optional<LockInfo>> describe(List<LockStore> nodes, String name, int quorum,
            Duration commandTimeout, String quorumName) {
        List<CompletableFuture<Optional<LockInfo>>> sent = new ArrayList<>(nodes.size());
        for (LockStore node : nodes) {
            sent.add(RequestOrder.send(() -> node.describe(name)).orTimeout(commandTimeout.toNanos(),
                    TimeUnit.NANOSECONDS));
        }
        return CompletableFuture.allOf(sent.stream().map(answer -> answer.exceptionally(error -> null))
                .toArray(CompletableFuture[]::new)).thenApply(all -> {
                    List<Optional<LockInfo>> answers = sent.stream()
                            .filter(answer -> !answer.isCompletedExceptionally()).map(CompletableFuture::join).toList();
                    if (answers.size() < quorum) {
                        throw new LockUnavailableException("Only " + answers.size() + " of " + nodes.size()
                                + " nodes of " + quorumName + " answered the description of lock '" + name
                                + "' within the command timeout (" + commandTimeout.toMillis() + " ms)");
                    }
                    return onMajority(answers, name, quorum);
                });
    }

    private static Optional<LockInfo> onMajority(List<Optional<LockInfo>> answers, String name, int quorum) {
        Map<String, List<LockInfo>> byHolder = answers.stream().flatMap(Optional::stream)
                .collect(Collectors.groupingBy(LockInfo::holder));
        return byHolder.values().stream().filter(held -> held.size() >= quorum).findFirst().map(held -> {
            long token = held.stream().mapToLong(LockInfo::fencingToken).max().orElseThrow();
            Duration remaining = held.stream().map(LockInfo::leaseRemaining).sorted(Comparator.reverseOrder())
                    .skip(quorum - 1L).findFirst().orElseThrow();
            return new LockInfo(name, held.get(0).holder(), token, remaining, null);
        });
    }
}
