package dev.distlock.campaign;

import java.time.Duration;
import java.util.List;
import java.util.Random;

/**
 * A store deployment under the campaign: how a node connects to it, which faults it can suffer, and how it is
 * healed. Each node gets connections of its own, through {@link #links()} where the topology has them.
 */
interface CampaignTopology extends AutoCloseable {

    /** @return the name in reports and in {@code -Dcampaign.stores} */
    String name();

    /**
     * @param node a node's name
     * @return how that node opens the store ({@link StoreSpecs})
     */
    String spec(String node);

    /** @return the per-node links the campaign partitions, delays and resets, or null when it has none */
    Links links();

    /** @return the faults of the servers (and of the topology's own links) that {@link #inject} handles */
    List<FaultKind> serverFaults();

    /**
     * Injects one fault; it lasts until the returned action runs.
     *
     * @param kind one of {@link #serverFaults()}
     * @param random the nemesis' random source (seeded)
     * @param duration how long the fault is meant to last
     * @return a description of what was done, and the action that ends the fault; null to leave a
     *         {@link FaultKind#PARTITION}, {@link FaultKind#DELAY} or {@link FaultKind#RESET} to the campaign, which
     *         then injects it on one node's {@link #links()}
     */
    @org.jspecify.annotations.Nullable
    Injected inject(FaultKind kind, Random random, Duration duration);

    /**
     * Injects one fault aimed at a node that holds a lock right now, where the fault is about one node (the
     * partition of review §6 shows only while the isolated node holds a lock); the others ignore the node.
     *
     * @param kind one of {@link #serverFaults()}
     * @param random the nemesis' random source (seeded)
     * @param duration how long the fault is meant to last
     * @param busyNode a node in the middle of a long hold, or null when none is
     * @return as {@link #inject(FaultKind, Random, Duration)}
     */
    @org.jspecify.annotations.Nullable
    default Injected inject(FaultKind kind, Random random, Duration duration,
            @org.jspecify.annotations.Nullable String busyNode) {
        return inject(kind, random, duration);
    }

    /** Brings every server and link back, and waits until the topology serves again. */
    void heal();

    /** @return the lease time of the nodes, in milliseconds */
    default long leaseMillis() {
        return 2000;
    }

    /** @return what the topology guarantees, for the report */
    String guarantee();

    /**
     * A fault in progress.
     *
     * @param description what was done, e.g. "SIGSTOP redis master 6380"
     * @param heal ends it
     */
    record Injected(String description, Runnable heal) {
    }

    @Override
    void close();
}
