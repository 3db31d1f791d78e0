package dev.distlock.embedded;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Redis Cluster on loopback ports: three masters with one replica each, created from Java with the
 * server's own commands ({@code CLUSTER ADDSLOTS}, {@code CLUSTER MEET}, {@code CLUSTER REPLICATE}), as
 * {@code redis-cli --cluster create} would. The slots are split as redis-cli splits them: 0-5460, 5461-10922 and
 * 10923-16383.
 * <p>
 * {@code cluster-node-timeout} is {@value #NODE_TIMEOUT_MILLIS} ms, so a replica takes over a failed master's
 * slots within a few seconds; replicas fail over however long their master was gone
 * ({@code cluster-replica-validity-factor 0}), since tests pause masters for arbitrary times. Each node keeps its
 * {@code nodes.conf} in its work directory, so a killed node started again rejoins with its old identity.
 * <p>
 * Masters are addressed by index in slot order: {@code masters().get(0)} is whichever node currently serves
 * slot 0. Not thread-safe: one test drives it at a time.
 */
public final class RedisClusterTopology implements AutoCloseable {

    /** {@code cluster-node-timeout}: a node not answering this long is failing. */
    public static final int NODE_TIMEOUT_MILLIS = 1500;

    /** How many masters serve the slots, each with one replica. */
    static final int MASTERS = 3;

    /** How many nodes the cluster has: the masters and one replica each. */
    static final int NODES = 2 * MASTERS;

    private static final Logger log = LoggerFactory.getLogger(RedisClusterTopology.class);

    private final ClusterMembers members;

    private final boolean shared;

    /** Killed or paused masters and the slot ranges each served then, in the order they failed. */
    private final Map<RedisServerProcess, List<int[]>> failed = new LinkedHashMap<>();

    private RedisClusterTopology(List<RedisServerProcess> nodes, boolean shared) {
        this.members = new ClusterMembers(nodes);
        this.shared = shared;
    }

    /**
     * Starts six nodes, makes them a cluster of three masters with one replica each, and returns once every node
     * reports {@code cluster_state:ok} with all 16384 slots served and every replica is in sync.
     *
     * @return the running cluster
     */
    public static RedisClusterTopology start() {
        return start(false, List.of());
    }

    /**
     * Starts the cluster as {@link #start()} does, each node with environment variables of its own in every run (a
     * node killed and started again, also by {@link #heal()}, keeps them), e.g. the {@code LD_PRELOAD} of a library
     * that fakes that node's clock.
     *
     * @param environments one map per node, six, in start order: the first three start as the masters of slots
     *        0-5460, 5461-10922 and 10923-16383, the last three as their replicas
     * @return the running cluster
     */
    public static RedisClusterTopology start(List<Map<String, String>> environments) {
        if (environments.size() != NODES) {
            throw new IllegalArgumentException("One environment per node: " + NODES + " nodes, "
                    + environments.size() + " environments");
        }
        return start(false, environments);
    }

    static RedisClusterTopology start(boolean shared) {
        return start(shared, List.of());
    }

    private static RedisClusterTopology start(boolean shared, List<Map<String, String>> environments) {
        long started = System.nanoTime();
        List<RedisServerProcess> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < NODES; i++) {
                nodes.add(ClusterNodeStarts.start(environments.isEmpty() ? Map.of() : environments.get(i)));
            }
            RedisClusterTopology cluster = new RedisClusterTopology(nodes, shared);
            ClusterCreation.create(cluster.servers());
            log.info("Redis Cluster started in {} ms: masters {}, replicas {}",
                    (System.nanoTime() - started) / 1_000_000,
                    nodes.subList(0, MASTERS).stream().map(RedisServerProcess::port).toList(),
                    nodes.subList(MASTERS, NODES).stream().map(RedisServerProcess::port).toList());
            return cluster;
        }
        catch (RuntimeException ex) {
            nodes.forEach(RedisServerProcess::kill);
            throw ex;
        }
    }

    /** @return the addresses of all six nodes */
    public List<RedisAddress> nodes() {
        return servers().stream().map(RedisServerProcess::address).toList();
    }

    /** @return all six nodes as {@code host:port,host:port,...} ({@code spring.data.redis.cluster.nodes}) */
    public String clusterNodes() {
        return nodes().stream().map(RedisAddress::toString).collect(Collectors.joining(","));
    }

    /** @return the six node processes, whatever their current roles */
    public List<RedisServerProcess> servers() {
        return members.all();
    }

    /**
     * Returns the nodes that currently serve slots, in slot order, as a reachable node sees the cluster. A failed
     * master keeps its place until a replica took its slots over.
     *
     * @return the masters; index 0 serves slot 0
     */
    public List<RedisServerProcess> masters() {
        return members.slotMasters().stream().map(members::process).toList();
    }

    /** @return the nodes that currently serve no slots (replicas, and failed masters whose slots moved) */
    public List<RedisServerProcess> replicas() {
        List<RedisServerProcess> masters = masters();
        return servers().stream().filter(node -> !masters.contains(node)).toList();
    }

    /**
     * Returns the master serving a slot, as a reachable node sees the cluster.
     *
     * @param slot 0 to 16383
     * @return the master
     */
    public RedisServerProcess masterOf(int slot) {
        if (slot < 0 || slot >= ClusterSlots.SLOT_COUNT) {
            throw new IllegalArgumentException("slot " + slot);
        }
        return members.view().stream().filter(ClusterNode::isMaster).filter(node -> node.serves(slot)).findFirst()
                .map(members::process)
                .orElseThrow(() -> new IllegalStateException("No master serves slot " + slot));
    }

    /**
     * Returns the master serving a key's slot ({@link ClusterSlots#slot(byte[])}).
     *
     * @param key the key
     * @return the master
     */
    public RedisServerProcess masterFor(byte[] key) {
        return masterOf(ClusterSlots.slot(key));
    }

    /**
     * Returns the master serving a key's slot.
     *
     * @param key the key (UTF-8)
     * @return the master
     */
    public RedisServerProcess masterFor(String key) {
        return masterOf(ClusterSlots.slot(key));
    }

    /**
     * Kills the master at an index of {@link #masters()} with {@code SIGKILL}.
     *
     * @param index 0, 1 or 2
     * @return the killed node
     */
    public RedisServerProcess killMaster(int index) {
        RedisServerProcess master = recordFailure(index);
        master.kill();
        return master;
    }

    /**
     * Freezes the master at an index of {@link #masters()} with {@code SIGSTOP}.
     *
     * @param index 0, 1 or 2
     * @return the paused node
     */
    public RedisServerProcess pauseMaster(int index) {
        RedisServerProcess master = recordFailure(index);
        master.pause();
        return master;
    }

    /** Remembers the slots the master served before it fails: afterwards no node may say so any more. */
    private RedisServerProcess recordFailure(int index) {
        ClusterNode master = members.slotMasters().get(index);
        RedisServerProcess process = members.process(master);
        failed.remove(process);
        failed.put(process, master.slots());
        return process;
    }

    /** Resumes every paused node. */
    public void resume() {
        servers().forEach(RedisServerProcess::resume);
    }

    /**
     * Waits until the slots of every master killed or paused since the last {@link #heal()} are served by another
     * node that answers {@code ROLE} as master, as every reachable node sees it, and every reachable node reports
     * {@code cluster_state:ok}.
     *
     * @param timeout how long to wait; a failover normally takes 2 to 5 seconds
     * @return the node that took over the slots of the last failed master
     * @throws IllegalStateException when no master was killed or paused, or on timeout
     */
    public RedisServerProcess awaitFailover(Duration timeout) {
        if (failed.isEmpty()) {
            throw new IllegalStateException("No master was killed or paused");
        }
        long started = System.nanoTime();
        RedisServerProcess promoted = new ClusterFailoverWait(members).await(new LinkedHashMap<>(failed), timeout);
        log.info("Cluster failover to {} observed after {} ms", promoted.address(),
                (System.nanoTime() - started) / 1_000_000);
        return promoted;
    }

    /**
     * Brings the cluster back to three masters with one in-sync replica each, all nodes reachable and
     * {@code cluster_state:ok}, whatever a test did: resumes paused nodes, starts killed ones again (they rejoin
     * with their {@code nodes.conf} and become replicas of the node that took their slots over; a node whose
     * {@code nodes.conf} is unusable joins afresh), introduces nodes that lost touch, and attaches a slot-less
     * master to the master that lacks a replica. Cheap when the cluster is healthy.
     *
     * @throws IllegalStateException when the cluster cannot be healed within 60 seconds
     */
    public void heal() {
        long started = System.nanoTime();
        new ClusterRepair(servers()).heal();
        failed.clear();
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (millis > 100) {
            log.info("Redis Cluster healed in {} ms", millis);
        }
    }

    /** Deletes every key on every master. */
    public void flushAll() {
        masters().forEach(master -> master.call("FLUSHALL"));
    }

    /**
     * Kills every node. Does nothing on a shared cluster ({@link RedisTopologies}): that one lives until the JVM
     * exits.
     */
    @Override
    public void close() {
        if (!shared) {
            servers().forEach(RedisServerProcess::kill);
        }
    }

    @Override
    public String toString() {
        return "RedisClusterTopology" + servers().stream().map(RedisServerProcess::port).toList();
    }
}
