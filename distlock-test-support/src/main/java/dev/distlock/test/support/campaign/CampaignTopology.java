package dev.distlock.test.support.campaign;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import dev.distlock.spi.LockStore;

/**
 * A store deployment under the fault campaign ({@code distlock-campaign}): how a node connects to it, which faults
 * it can suffer, and how it is healed. Each node gets connections of its own, through {@link #links()} where the
 * topology has them. A store module provides its topologies in its test-jar, with a {@link Provider} listed in
 * {@code META-INF/services/dev.distlock.test.support.campaign.CampaignTopology$Provider}; the campaign finds them
 * through {@link CampaignTopologies} and names no store.
 */
public interface CampaignTopology extends AutoCloseable {

    /** The command timeout of every campaign store and node. */
    Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

    /** The key prefix (or base path) of every campaign store. */
    String KEY_PREFIX = "campaign";

    /** @return the name in reports and in {@code -Dcampaign.stores} */
    String name();

    /**
     * @param node a node's name
     * @return how that node opens the store: a one-line spec, {@code <kind>|...}, that the topology's
     *         {@link Provider#open(String)} understands, in the test JVM and in a node's child JVM alike
     */
    String spec(String node);

    /** @return the per-node links the campaign partitions, delays and resets, or null when it has none */
    @org.jspecify.annotations.Nullable
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

    /** The default of {@link #fixedLeaseMillis()}: whole seconds, as etcd's leases are. */
    long FIXED_LEASE_MILLIS = 1000;

    /**
     * @return the fixed lease (not renewed) of the campaign's holds whose work outlasts it, in milliseconds; longer
     *         where a store's clock runs fast ({@link ClockFaults#fixedLeaseMillis})
     */
    default long fixedLeaseMillis() {
        return FIXED_LEASE_MILLIS;
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

    /**
     * A store and what it holds open.
     *
     * @param store the store, not started
     * @param resources closed after the store (connection factories, pools)
     */
    record Opened(LockStore store, List<AutoCloseable> resources) {

        /** Closes the resources, after the store was closed. */
        public void closeResources() {
            for (AutoCloseable resource : resources) {
                try {
                    resource.close();
                }
                catch (Exception ex) {
                    // Closing at the end of a run: nothing to do about it.
                }
            }
        }
    }

    /** A store module's topologies, listed in its test-jar's {@code META-INF/services}. */
    interface Provider {

        /** @return the names of its topologies, as reports and {@code -Dcampaign.stores} name them */
        List<String> names();

        /**
         * @param name one of {@link #names()}
         * @return the started topology
         */
        CampaignTopology start(String name);

        /**
         * @param spec a node's spec, from {@link CampaignTopology#spec(String)}
         * @return the node's store, or empty when the spec is another provider's
         */
        Optional<Opened> open(String spec);
    }
}
