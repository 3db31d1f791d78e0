package dev.distlock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
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

    private static final Logger log = LoggerFactory.getLogger(RedisClusterTopology.class);

    private static final int MASTERS = 3;

    private static final int NODES = 2 * MASTERS;

    /** Redis 6.2 has no {@code cluster-port}: the cluster bus is always the client port plus 10000. */
    private static final int BUS_OFFSET = 10000;

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private static final Duration HEAL_TIMEOUT = Duration.ofSeconds(60);

    private static final long CORRECTION_GRACE_NANOS = Duration.ofSeconds(3).toNanos();

    private final List<RedisServerProcess> nodes;

    private final boolean shared;

    /** Killed or paused masters and the slot ranges each served then, in the order they failed. */
    private final Map<RedisServerProcess, List<int[]>> failed = new LinkedHashMap<>();

    private RedisClusterTopology(List<RedisServerProcess> nodes, boolean shared) {
        this.nodes = nodes;
        this.shared = shared;
    }

    /**
     * Starts six nodes, makes them a cluster of three masters with one replica each, and returns once every node
     * reports {@code cluster_state:ok} with all 16384 slots served and every replica is in sync.
     *
     * @return the running cluster
     */
    public static RedisClusterTopology start() {
        return start(false);
    }

    static RedisClusterTopology start(boolean shared) {
        long started = System.nanoTime();
        List<RedisServerProcess> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < NODES; i++) {
                nodes.add(startNode());
            }
            RedisClusterTopology cluster = new RedisClusterTopology(List.copyOf(nodes), shared);
            cluster.create();
            log.info("Redis Cluster started in {} ms: masters {}, replicas {}", (System.nanoTime() - started) / 1_000_000,
                    nodes.subList(0, MASTERS).stream().map(RedisServerProcess::port).toList(),
                    nodes.subList(MASTERS, NODES).stream().map(RedisServerProcess::port).toList());
            return cluster;
        }
        catch (RuntimeException ex) {
            nodes.forEach(RedisServerProcess::kill);
            throw ex;
        }
    }

    private static RedisServerProcess startNode() {
        IllegalStateException last = null;
        for (int attempt = 0; attempt < 5; attempt++) {
            try {
                return RedisServerProcess.builder().port(freeClusterPort())
                        .args("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                                "--cluster-node-timeout", String.valueOf(NODE_TIMEOUT_MILLIS),
                                "--cluster-replica-validity-factor", "0",
                                "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")
                        .start();
            }
            catch (IllegalStateException ex) {
                last = ex; // the port or its bus port was taken in the meantime
            }
        }
        throw last;
    }

    /** A free port whose bus port (port + 10000) is free as well. */
    private static int freeClusterPort() {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = RedisServerProcess.freePort();
            if (port + BUS_OFFSET <= 65535 && isFree(port + BUS_OFFSET)) {
                return port;
            }
        }
        throw new IllegalStateException("No free port with a free cluster bus port");
    }

    private static boolean isFree(int port) {
        try (ServerSocket socket = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
            socket.setReuseAddress(true);
            return true;
        }
        catch (IOException ex) {
            return false;
        }
    }

    private void create() {
        // Distinct config epochs before the nodes meet, as redis-cli does, so that no epoch collision has to be
        // resolved later.
        for (int i = 0; i < NODES; i++) {
            nodes.get(i).call("CLUSTER", "SET-CONFIG-EPOCH", String.valueOf(i + 1));
        }
        int firstSlot = 0;
        for (int i = 0; i < MASTERS; i++) {
            // redis-cli's split: 0-5460, 5461-10922, 10923-16383.
            int last = i == MASTERS - 1 ? ClusterSlots.SLOT_COUNT - 1
                    : (int) Math.round((i + 1) * (double) ClusterSlots.SLOT_COUNT / MASTERS - 1);
            // CLUSTER ADDSLOTSRANGE needs Redis 7; ADDSLOTS with every slot works everywhere.
            List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = firstSlot; slot <= last; slot++) {
                command.add(String.valueOf(slot));
            }
            try (RespConnection connection = RespConnection.open(nodes.get(i).address(), RespConnection.DEFAULT_TIMEOUT)) {
                connection.call(command);
            }
            firstSlot = last + 1;
        }
        RedisServerProcess introducer = nodes.get(0);
        for (int i = 1; i < NODES; i++) {
            introducer.call("CLUSTER", "MEET", nodes.get(i).host(), String.valueOf(nodes.get(i).port()));
        }
        Poll.untilTrue("every cluster node to know the others", START_TIMEOUT, () -> {
            for (RedisServerProcess node : nodes) {
                List<ClusterNode> view = ClusterNode.parse(node.call("CLUSTER", "NODES"));
                if (view.size() != NODES || view.stream().anyMatch(ClusterNode::isTroubled)) {
                    return Poll.notYet(node.address() + " sees " + view.size() + " nodes");
                }
            }
            return true;
        });
        for (int i = 0; i < MASTERS; i++) {
            String masterId = String.valueOf(nodes.get(i).call("CLUSTER", "MYID"));
            nodes.get(MASTERS + i).call("CLUSTER", "REPLICATE", masterId);
        }
        Poll.untilTrue("the cluster to be ok", START_TIMEOUT, () -> {
            String problem = healthProblem();
            return problem == null ? Boolean.TRUE : Poll.notYet(problem);
        });
    }

    /** @return the addresses of all six nodes */
    public List<RedisAddress> nodes() {
        return nodes.stream().map(RedisServerProcess::address).toList();
    }

    /** @return all six nodes as {@code host:port,host:port,...} ({@code spring.data.redis.cluster.nodes}) */
    public String clusterNodes() {
        return nodes().stream().map(RedisAddress::toString).collect(Collectors.joining(","));
    }

    /** @return the six node processes, whatever their current roles */
    public List<RedisServerProcess> servers() {
        return nodes;
    }

    /**
     * Returns the nodes that currently serve slots, in slot order, as a reachable node sees the cluster. A failed
     * master keeps its place until a replica took its slots over.
     *
     * @return the masters; index 0 serves slot 0
     */
    public List<RedisServerProcess> masters() {
        return view().stream().filter(ClusterNode::isMaster).filter(node -> !node.slots().isEmpty())
                .sorted(Comparator.comparingInt(ClusterNode::firstSlot)).map(this::process).toList();
    }

    /** @return the nodes that currently serve no slots (replicas, and failed masters whose slots moved) */
    public List<RedisServerProcess> replicas() {
        List<RedisServerProcess> masters = masters();
        return nodes.stream().filter(node -> !masters.contains(node)).toList();
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
        return view().stream().filter(ClusterNode::isMaster).filter(node -> node.serves(slot)).findFirst()
                .map(this::process).orElseThrow(() -> new IllegalStateException("No master serves slot " + slot));
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

    private RedisServerProcess recordFailure(int index) {
        ClusterNode master = view().stream().filter(ClusterNode::isMaster).filter(node -> !node.slots().isEmpty())
                .sorted(Comparator.comparingInt(ClusterNode::firstSlot)).toList().get(index);
        RedisServerProcess process = process(master);
        failed.remove(process);
        failed.put(process, master.slots());
        return process;
    }

    /** Resumes every paused node. */
    public void resume() {
        nodes.forEach(RedisServerProcess::resume);
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
        Map<RedisServerProcess, List<int[]>> awaited = new LinkedHashMap<>(failed);
        RedisServerProcess promoted = Poll.until("a replica to take over the slots of " + awaited.keySet(), timeout,
                () -> {
                    RedisServerProcess last = null;
                    for (Map.Entry<RedisServerProcess, List<int[]>> entry : awaited.entrySet()) {
                        last = takenOverBy(entry.getKey(), entry.getValue().get(0)[0]);
                    }
                    for (RedisServerProcess node : liveNodes()) {
                        String state = Replies.info(node.call("CLUSTER", "INFO")).get("cluster_state");
                        if (!"ok".equals(state)) {
                            return Poll.notYet(node.address() + " reports cluster_state:" + state);
                        }
                    }
                    return last;
                });
        log.info("Cluster failover to {} observed after {} ms", promoted.address(),
                (System.nanoTime() - started) / 1_000_000);
        return promoted;
    }

    private RedisServerProcess takenOverBy(RedisServerProcess failedNode, int slot) {
        RedisServerProcess owner = null;
        for (RedisServerProcess node : liveNodes()) {
            RedisServerProcess seen = ClusterNode.parse(node.call("CLUSTER", "NODES")).stream()
                    .filter(ClusterNode::isMaster).filter(entry -> entry.serves(slot)).findFirst().map(this::process)
                    .orElse(null);
            if (seen == null || seen == failedNode || (owner != null && owner != seen)) {
                return Poll.notYet(node.address() + " sees slot " + slot + " served by " + seen);
            }
            owner = seen;
        }
        if (owner == null) {
            return Poll.notYet("no live node to ask which node serves slot " + slot);
        }
        Object role = Replies.list(owner.call("ROLE")).get(0);
        return "master".equals(role) ? owner : Poll.notYet(owner.address() + " has role " + role);
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
        resume();
        for (RedisServerProcess node : nodes) {
            if (!node.isRunning()) {
                restart(node);
            }
        }
        Map<RedisServerProcess, Long> orphanSince = new HashMap<>();
        Poll.untilTrue("the cluster to heal", HEAL_TIMEOUT, () -> {
            for (RedisServerProcess node : nodes) {
                if (!node.isRunning()) {
                    restart(node);
                }
            }
            correct(orphanSince);
            String problem = healthProblem();
            return problem == null ? Boolean.TRUE : Poll.notYet(problem);
        });
        failed.clear();
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (millis > 100) {
            log.info("Redis Cluster healed in {} ms", millis);
        }
    }

    private void restart(RedisServerProcess node) {
        try {
            node.start();
        }
        catch (IllegalStateException ex) {
            // Most likely a nodes.conf the kill left unreadable: join as a new node, correct() does the rest.
            log.warn("heal: {} did not start with its nodes.conf, starting it as a new node: {}", node.address(),
                    ex.getMessage());
            try {
                Files.deleteIfExists(node.workDir().resolve("nodes.conf"));
            }
            catch (IOException io) {
                throw new UncheckedIOException(io);
            }
            node.start();
        }
    }

    /** Fixes what the cluster does not fix by itself: unknown nodes, stale identities, replica-less masters. */
    private void correct(Map<RedisServerProcess, Long> orphanSince) {
        Map<RedisServerProcess, String> ids = new HashMap<>();
        for (RedisServerProcess node : nodes) {
            ids.put(node, String.valueOf(node.call("CLUSTER", "MYID")));
        }
        RedisServerProcess anchor = nodes.stream().max(Comparator.comparingInt(node -> ClusterNode.parse(node.call("CLUSTER", "NODES")).size()))
                .orElseThrow();
        List<ClusterNode> anchorView = ClusterNode.parse(anchor.call("CLUSTER", "NODES"));
        Set<String> known = anchorView.stream().map(ClusterNode::id).collect(Collectors.toSet());
        for (RedisServerProcess node : nodes) {
            if (!known.contains(ids.get(node))) {
                log.info("heal: introducing {} to the cluster", node.address());
                anchor.call("CLUSTER", "MEET", node.host(), String.valueOf(node.port()));
            }
        }
        // An old identity of a node that joined afresh stays in every table as failed until forgotten.
        for (ClusterNode entry : anchorView) {
            if (!ids.containsValue(entry.id())
                    && (entry.flags().contains("fail") || entry.flags().contains("noaddr"))) {
                log.info("heal: forgetting stale node id {} ({})", entry.id(), entry.address());
                for (RedisServerProcess node : nodes) {
                    try {
                        node.call("CLUSTER", "FORGET", entry.id());
                    }
                    catch (RespErrorException ex) {
                        // unknown there already, or its master: nothing to forget
                    }
                }
            }
        }
        for (RedisServerProcess node : nodes) {
            List<ClusterNode> own = ClusterNode.parse(node.call("CLUSTER", "NODES"));
            ClusterNode self = own.stream().filter(ClusterNode::isMyself).findFirst().orElseThrow();
            if (!self.isMaster() || !self.slots().isEmpty()) {
                orphanSince.remove(node);
                continue;
            }
            long since = orphanSince.computeIfAbsent(node, key -> System.nanoTime());
            if (System.nanoTime() - since < CORRECTION_GRACE_NANOS) {
                continue; // a rejoining old master is normally turned into a replica by the cluster itself
            }
            own.stream().filter(ClusterNode::isMaster).filter(master -> !master.slots().isEmpty())
                    .filter(master -> own.stream().noneMatch(other -> master.id().equals(other.masterId())
                            && !other.isTroubled()))
                    .findFirst().ifPresent(master -> {
                        log.info("heal: {} replicates {}", node.address(), master.address());
                        node.call("CLUSTER", "REPLICATE", master.id());
                        orphanSince.remove(node);
                    });
        }
    }

    /** Describes what is not healthy yet, or returns null when the cluster is as {@link #start()} left it. */
    private @Nullable String healthProblem() {
        Map<Integer, String> ownerByRange = null;
        for (RedisServerProcess node : nodes) {
            if (!node.isRunning() || node.isPaused()) {
                return node + " is not running";
            }
            Map<String, String> info = Replies.info(node.call("CLUSTER", "INFO"));
            if (!"ok".equals(info.get("cluster_state")) || !"16384".equals(info.get("cluster_slots_ok"))
                    || !String.valueOf(NODES).equals(info.get("cluster_known_nodes"))
                    || !String.valueOf(MASTERS).equals(info.get("cluster_size"))) {
                return node.address() + ": cluster_state " + info.get("cluster_state") + ", slots ok "
                        + info.get("cluster_slots_ok") + ", known nodes " + info.get("cluster_known_nodes")
                        + ", size " + info.get("cluster_size");
            }
            List<ClusterNode> view = ClusterNode.parse(node.call("CLUSTER", "NODES"));
            for (ClusterNode entry : view) {
                if (entry.isTroubled() || (!entry.isMyself() && !"connected".equals(entry.linkState()))) {
                    return node.address() + " sees " + entry.address() + " as " + entry.flags() + " "
                            + entry.linkState();
                }
            }
            Map<Integer, String> owners = new HashMap<>();
            for (ClusterNode master : view) {
                if (master.isMaster() && !master.slots().isEmpty()) {
                    owners.put(master.firstSlot(), master.id());
                    long replicas = view.stream().filter(other -> master.id().equals(other.masterId())).count();
                    if (replicas != 1) {
                        return node.address() + " sees " + replicas + " replicas of " + master.address();
                    }
                }
            }
            if (ownerByRange != null && !ownerByRange.equals(owners)) {
                return "the nodes do not agree on the slot owners yet";
            }
            ownerByRange = owners;
            Map<String, String> replication = Replies.info(node.call("INFO", "replication"));
            if ("slave".equals(replication.get("role")) && !"up".equals(replication.get("master_link_status"))) {
                return node.address() + " replication link is " + replication.get("master_link_status");
            }
        }
        return null;
    }

    /** The cluster as the first reachable node sees it. */
    private List<ClusterNode> view() {
        RuntimeException last = null;
        for (RedisServerProcess node : liveNodes()) {
            try {
                return ClusterNode.parse(node.call("CLUSTER", "NODES"));
            }
            catch (RuntimeException ex) {
                last = ex;
            }
        }
        throw new IllegalStateException("No cluster node answers", last);
    }

    private List<RedisServerProcess> liveNodes() {
        return nodes.stream().filter(RedisServerProcess::isRunning).filter(node -> !node.isPaused()).toList();
    }

    private RedisServerProcess process(ClusterNode entry) {
        return nodes.stream().filter(node -> entry.address() != null && node.port() == entry.address().port())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(entry.address() + " is not a node of this cluster"));
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
            nodes.forEach(RedisServerProcess::kill);
        }
    }

    @Override
    public String toString() {
        return "RedisClusterTopology" + nodes.stream().map(RedisServerProcess::port).toList();
    }
}
