package dev.distlock.ha;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.embedded.RedisClusterTopology;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.test.support.LockHistory;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.awaitility.Awaitility.await;

/**
 * Application nodes on the shared Redis Cluster, configured through {@code spring.data.redis.cluster.*} with
 * Lettuce following the topology, under one key prefix: lock names placed on a chosen master, hand-offs between two
 * nodes timed from the release, and a slot moved between masters.
 *
 * @param cluster the cluster
 * @param keyPrefix the nodes' {@code distlock.key-prefix}
 */
record ClusterNodes(RedisClusterTopology cluster, String keyPrefix) {

    /**
     * @param history where every node records its grants
     * @param properties further settings
     * @return a runner for one node
     */
    ApplicationContextRunner runner(LockHistory history, String... properties) {
        return HaApplications.node(history)
                .withPropertyValues("spring.data.redis.cluster.nodes=" + cluster.clusterNodes(),
                        "spring.data.redis.lettuce.cluster.refresh.adaptive=true",
                        "spring.data.redis.lettuce.cluster.refresh.period=1s", "distlock.key-prefix=" + keyPrefix)
                .withPropertyValues(properties);
    }

    /** @return the Redis key of a lock name */
    String key(String name) {
        return keyPrefix + ":{" + name + "}";
    }

    /** @return a lock name starting with the prefix whose keys live on the given master */
    String nameOn(RedisServerProcess master, String prefix) {
        for (int i = 0;; i++) {
            String name = prefix + "-" + i;
            if (cluster.masterFor(key(name)) == master) {
                return name;
            }
        }
    }

    /**
     * A number of times: node A holds the name, node B waits for it (queued: the lock's value is flagged), A
     * releases.
     *
     * @return per round, the milliseconds from A's release to B holding the lock
     */
    List<Long> handOffMillis(LockService nodeA, LockService nodeB, String name, int rounds) throws Exception {
        ExecutorService pool = Executors.newSingleThreadExecutor();
        try {
            List<Long> millis = new ArrayList<>();
            for (int round = 0; round < rounds; round++) {
                LockHandle held = nodeA.lock(name);
                Future<Long> acquired = pool.submit(() -> {
                    try (LockHandle handle = nodeB.lock(name)) {
                        return System.nanoTime();
                    }
                });
                await().atMost(Duration.ofSeconds(5)).until(() -> String.valueOf(
                        cluster.masterFor(key(name)).call("GET", key(name))).endsWith("+"));
                long released = System.nanoTime();
                held.unlock();
                millis.add(TimeUnit.NANOSECONDS.toMillis(acquired.get(10, TimeUnit.SECONDS) - released));
            }
            return millis;
        }
        finally {
            pool.shutdown();
        }
    }

    /** Moves an empty slot between masters the way {@code redis-cli --cluster reshard} does. */
    void moveSlot(int slot, RedisServerProcess from, RedisServerProcess to) {
        String fromId = String.valueOf(from.call("CLUSTER", "MYID"));
        String toId = String.valueOf(to.call("CLUSTER", "MYID"));
        String s = String.valueOf(slot);
        to.call("CLUSTER", "SETSLOT", s, "IMPORTING", fromId);
        from.call("CLUSTER", "SETSLOT", s, "MIGRATING", toId);
        to.call("CLUSTER", "SETSLOT", s, "NODE", toId);
        from.call("CLUSTER", "SETSLOT", s, "NODE", toId);
        for (RedisServerProcess master : cluster.masters()) {
            if (!master.equals(from) && !master.equals(to)) {
                master.call("CLUSTER", "SETSLOT", s, "NODE", toId);
            }
        }
        await().atMost(Duration.ofSeconds(10)).until(() -> cluster.masterOf(slot).equals(to));
    }
}
