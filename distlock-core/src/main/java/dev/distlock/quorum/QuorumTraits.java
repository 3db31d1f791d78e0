package dev.distlock.quorum;

import java.time.Duration;
import java.util.List;

import dev.distlock.spi.StoreTraits;

/**
 * The traits of a quorum, derived once from its nodes' traits.
 */
final class QuorumTraits {

    private QuorumTraits() {
    }

    /**
     * Derives a quorum's traits:
     * <ul>
     * <li>leases {@link StoreTraits.LeaseKind#EXPIRING}: every node's expire ({@link QuorumConfig} checks it);</li>
     * <li>tokens {@link StoreTraits.TokenSource#CLOCK} when every node's are, so the highest of a majority is too,
     * else {@link StoreTraits.TokenSource#COUNTER};</li>
     * <li>no permits, whatever the nodes support: a majority of grants cannot bound permits. Each node grants a name
     * to at most n holders, yet with three nodes and two permits three holders can each win two nodes (one on nodes 1
     * and 2, one on 2 and 3, one on 1 and 3). Bounding n permits on N nodes would take grants on more than N·n/(n+1)
     * nodes (all three of three for two permits), so locking would stop with one node down, which is what a quorum
     * is for. The engine refuses permits here with a {@code LockException};</li>
     * <li>the longest answer allowance of the nodes plus {@code voteMargin}: a vote waits for each node's attempt the
     * command timeout plus that node's allowance, and its outcome then needs a moment to reach the engine.</li>
     * </ul>
     *
     * @param nodes the nodes' traits
     * @param voteMargin the time a vote's outcome needs to reach the engine
     * @return the quorum's traits
     */
    static StoreTraits derive(List<StoreTraits> nodes, Duration voteMargin) {
        boolean clock = true;
        Duration longest = Duration.ZERO;
        for (StoreTraits node : nodes) {
            clock &= node.tokensFollowClock();
            if (node.answerAllowance().compareTo(longest) > 0) {
                longest = node.answerAllowance();
            }
        }
        return StoreTraits.of(StoreTraits.LeaseKind.EXPIRING,
                clock ? StoreTraits.TokenSource.CLOCK : StoreTraits.TokenSource.COUNTER)
                .withAnswerAllowance(longest.plus(voteMargin));
    }
}
