package dev.distlock.quorum;

import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Objects;
import java.util.Set;

import dev.distlock.spi.LockStore;

/**
 * The settings of a {@link QuorumLockStore}, validated once.
 *
 * @param nodes the independent stores voting on every lock, at least three, each a distinct instance whose leases
 *        expire ({@link dev.distlock.spi.StoreTraits.LeaseKind#EXPIRING}): a quorum counts on a lease ending on a
 *        node it cannot reach
 * @param commandTimeout how long a vote waits for each node's answer (plus the node's own
 *        {@link dev.distlock.spi.StoreTraits#answerAllowance()}); the same as {@code distlock.command-timeout}
 */
public record QuorumConfig(List<LockStore> nodes, Duration commandTimeout) {

    /** The fewest nodes: with two, one node down would stop locking, so a quorum would add nothing. */
    public static final int MIN_NODES = 3;

    /**
     * Checks the values and copies the nodes.
     */
    public QuorumConfig {
        Objects.requireNonNull(nodes, "QuorumConfig.nodes must not be null");
        if (nodes.size() < MIN_NODES) {
            throw new IllegalArgumentException("QuorumConfig.nodes needs at least " + MIN_NODES
                    + " independent stores (a majority must survive one of them failing), got " + nodes.size());
        }
        Set<LockStore> distinct = Collections.newSetFromMap(new IdentityHashMap<>());
        for (int i = 0; i < nodes.size(); i++) {
            LockStore node = nodes.get(i);
            if (node == null) {
                throw new IllegalArgumentException("QuorumConfig.nodes[" + i + "] is null");
            }
            if (!distinct.add(node)) {
                throw new IllegalArgumentException("QuorumConfig.nodes[" + i + "] (" + node + ") is listed twice: "
                        + "each node must be an independent store, or one store would cast several votes");
            }
            if (!node.traits().leasesExpire()) {
                throw new IllegalArgumentException("QuorumConfig.nodes[" + i + "] (" + node + ") holds locks for "
                        + "as long as its session lasts (its leases are SESSION leases): a quorum needs stores whose "
                        + "leases expire, since it counts on a lease ending on a node it cannot reach");
            }
        }
        nodes = List.copyOf(nodes);
        Objects.requireNonNull(commandTimeout, "QuorumConfig.commandTimeout must not be null");
        if (commandTimeout.isNegative() || commandTimeout.isZero()) {
            throw new IllegalArgumentException("QuorumConfig.commandTimeout must be positive: " + commandTimeout);
        }
    }

    /** @return how many nodes must agree: a majority */
    public int quorum() {
        return nodes.size() / 2 + 1;
    }
}
