package dev.distlock.embedded;

import org.jspecify.annotations.Nullable;

/**
 * Topologies started at most once per JVM and shared by every test class that asks for them, so that the suite
 * pays for starting a Sentinel deployment or a cluster once, not once per class.
 * <p>
 * Each accessor starts its topology on first use and {@linkplain RedisSentinelTopology#heal() heals} it on every
 * later use, so a test class gets a healthy topology even when an earlier one killed or paused nodes and failed
 * before healing. Data is not cleared: use distinct keys, or {@code flushAll()}. {@code close()} on a shared
 * topology does nothing; its processes are killed by the JVM shutdown hook of {@link RedisServerProcess}.
 * <p>
 * Tests that run in parallel must not fault the same shared topology at the same time.
 */
public final class RedisTopologies {

    /** The master name of the shared Sentinel topology. */
    public static final String SHARED_MASTER_NAME = "distlock-master";

    /** The number of servers in the shared group. */
    public static final int SHARED_GROUP_SIZE = 5;

    private static @Nullable RedisSentinelTopology sentinel;

    private static @Nullable RedisClusterTopology cluster;

    private static @Nullable RedisServerGroup group;

    private RedisTopologies() {
    }

    /**
     * Returns the JVM's Sentinel topology (master {@value #SHARED_MASTER_NAME}, two replicas, three Sentinels),
     * starting it on first use and healing it on later uses.
     *
     * @return the healthy shared topology
     */
    public static synchronized RedisSentinelTopology sharedSentinel() {
        if (sentinel == null) {
            sentinel = RedisSentinelTopology.start(SHARED_MASTER_NAME, true);
        }
        else {
            sentinel.heal();
        }
        return sentinel;
    }

    /**
     * Returns the JVM's Redis Cluster (three masters, one replica each), starting it on first use and healing it
     * on later uses.
     *
     * @return the healthy shared cluster
     */
    public static synchronized RedisClusterTopology sharedCluster() {
        if (cluster == null) {
            cluster = RedisClusterTopology.start(true);
        }
        else {
            cluster.heal();
        }
        return cluster;
    }

    /**
     * Returns the JVM's group of {@value #SHARED_GROUP_SIZE} independent servers (for Redlock), starting it on
     * first use and healing it on later uses.
     *
     * @return the shared group, every server running
     */
    public static synchronized RedisServerGroup sharedGroup() {
        if (group == null) {
            group = RedisServerGroup.start(SHARED_GROUP_SIZE, true);
        }
        else {
            group.heal();
        }
        return group;
    }
}
