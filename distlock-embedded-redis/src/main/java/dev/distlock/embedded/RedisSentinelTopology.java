package dev.distlock.embedded;

import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HexFormat;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Collectors;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real Redis Sentinel deployment on loopback ports: one master, two replicas ({@code --replicaof}) and three
 * Sentinels (quorum 2), each process in its own work directory.
 * <p>
 * Timeouts are short so that a failover takes seconds: a master is considered down after
 * {@value #DOWN_AFTER_MILLIS} ms, and {@code failover-timeout} is {@value #FAILOVER_TIMEOUT_MILLIS} ms. Sentinel
 * does not start a new failover of the same master within twice that time of the previous one, so back-to-back
 * failovers are a few seconds apart.
 * <pre>{@code
 * RedisSentinelTopology sentinel = RedisTopologies.sharedSentinel();   // or RedisSentinelTopology.start("mymaster")
 * // spring.data.redis.sentinel.master = sentinel.masterName()
 * // spring.data.redis.sentinel.nodes  = sentinel.sentinelNodes()
 * RedisServerProcess old = sentinel.killMaster();
 * RedisServerProcess promoted = sentinel.awaitFailover(Duration.ofSeconds(30));
 * sentinel.heal();   // old master back as a replica: one master, two replicas again
 * }</pre>
 * Not thread-safe: one test drives it at a time.
 */
public final class RedisSentinelTopology implements AutoCloseable {

    /**
     * Sentinel's {@code down-after-milliseconds}: a master that does not answer this long is down.
     * <p>
     * Not 1000 or less: Sentinel pings at most once a second, and right after a failover it counts a new master's
     * first, not yet answered, ping from the moment the master was switched. With 1000 ms every freshly promoted
     * master is seen down for a moment, which can start a second, spurious failover. 2000 ms leaves a margin
     * on a loaded machine.
     */
    public static final int DOWN_AFTER_MILLIS = 2000;

    /** Sentinel's {@code failover-timeout}. */
    public static final int FAILOVER_TIMEOUT_MILLIS = 2000;

    private static final Logger log = LoggerFactory.getLogger(RedisSentinelTopology.class);

    private static final int QUORUM = 2;

    private static final int SENTINELS = 3;

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    private static final Duration HEAL_TIMEOUT = Duration.ofSeconds(60);

    /** How long a node may report a wrong role before heal() corrects it itself instead of leaving it to Sentinel. */
    private static final long CORRECTION_GRACE_NANOS = Duration.ofSeconds(1).toNanos();

    /** Full resynchronisation without the default 5 s wait for more replicas (Redis 7 syncs diskless by default). */
    private static final String[] DATA_ARGS = { "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0" };

    private final String masterName;

    private final List<RedisServerProcess> dataNodes;

    private final List<RedisServerProcess> sentinelNodes;

    private final boolean shared;

    private volatile @Nullable RedisAddress failedMaster;

    private RedisSentinelTopology(String masterName, List<RedisServerProcess> dataNodes,
            List<RedisServerProcess> sentinelNodes, boolean shared) {
        this.masterName = masterName;
        this.dataNodes = dataNodes;
        this.sentinelNodes = sentinelNodes;
        this.shared = shared;
    }

    /**
     * Starts a master, two replicas and three Sentinels, and returns once replication is up and every Sentinel
     * knows the master, both replicas and the two other Sentinels.
     *
     * @param masterName the name the Sentinels monitor the master under
     * @return the running topology
     */
    public static RedisSentinelTopology start(String masterName) {
        return start(masterName, false);
    }

    static RedisSentinelTopology start(String masterName, boolean shared) {
        Objects.requireNonNull(masterName, "masterName");
        long started = System.nanoTime();
        RuntimeException last = null;
        // Sentinel ports are chosen before the Sentinels start (each config names the others), so one may be
        // taken in between: start over on new ports.
        for (int attempt = 0; attempt < 3; attempt++) {
            List<RedisServerProcess> data = new CopyOnWriteArrayList<>();
            List<RedisServerProcess> sentinels = new CopyOnWriteArrayList<>();
            try {
                RedisServerProcess master = RedisServerProcess.builder().args(DATA_ARGS).start();
                data.add(master);
                for (int i = 0; i < 2; i++) {
                    data.add(RedisServerProcess.builder().args(DATA_ARGS)
                            .args("--replicaof", master.host(), String.valueOf(master.port())).start());
                }
                startSentinels(masterName, master, data.subList(1, 3), sentinels);
                RedisSentinelTopology topology = new RedisSentinelTopology(masterName, data, sentinels, shared);
                Poll.untilTrue("Sentinel topology " + masterName + " to be ready", START_TIMEOUT, () -> {
                    String problem = topology.healthProblem(master.address());
                    return problem == null ? Boolean.TRUE : Poll.notYet(problem);
                });
                log.info("Sentinel topology '{}' started in {} ms: master {}, replicas {}, sentinels {}", masterName,
                        (System.nanoTime() - started) / 1_000_000, master.port(),
                        data.subList(1, 3).stream().map(RedisServerProcess::port).toList(), topology.sentinels());
                return topology;
            }
            catch (RuntimeException ex) {
                last = ex;
                sentinels.forEach(RedisServerProcess::kill);
                data.forEach(RedisServerProcess::kill);
            }
        }
        throw last;
    }

    private static void startSentinels(String masterName, RedisServerProcess master, List<RedisServerProcess> replicas,
            List<RedisServerProcess> sentinels) {
        List<Integer> ports = new ArrayList<>();
        while (ports.size() < SENTINELS) {
            int port = RedisServerProcess.freePort();
            if (!ports.contains(port)) {
                ports.add(port);
            }
        }
        SecureRandom random = new SecureRandom();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < SENTINELS; i++) {
            byte[] id = new byte[20];
            random.nextBytes(id);
            ids.add(HexFormat.of().formatHex(id));
        }
        for (int i = 0; i < SENTINELS; i++) {
            // The Sentinels are told about the replicas and each other up front (the same lines Sentinel writes
            // into its own config), so they need not discover them through INFO and hello messages, which takes
            // several seconds.
            StringBuilder config = new StringBuilder();
            config.append("sentinel myid ").append(ids.get(i)).append('\n');
            config.append("sentinel monitor ").append(masterName).append(' ').append(master.host()).append(' ')
                    .append(master.port()).append(' ').append(QUORUM).append('\n');
            config.append("sentinel down-after-milliseconds ").append(masterName).append(' ')
                    .append(DOWN_AFTER_MILLIS).append('\n');
            config.append("sentinel failover-timeout ").append(masterName).append(' ')
                    .append(FAILOVER_TIMEOUT_MILLIS).append('\n');
            config.append("sentinel parallel-syncs ").append(masterName).append(" 1\n");
            for (RedisServerProcess replica : replicas) {
                config.append("sentinel known-replica ").append(masterName).append(' ').append(replica.host())
                        .append(' ').append(replica.port()).append('\n');
            }
            for (int j = 0; j < SENTINELS; j++) {
                if (j != i) {
                    config.append("sentinel known-sentinel ").append(masterName).append(" 127.0.0.1 ")
                            .append(ports.get(j)).append(' ').append(ids.get(j)).append('\n');
                }
            }
            sentinels.add(RedisServerProcess.builder().sentinel().port(ports.get(i)).config(config.toString()).start());
        }
    }

    /** @return the name the Sentinels monitor the master under ({@code spring.data.redis.sentinel.master}) */
    public String masterName() {
        return masterName;
    }

    /** @return the Sentinels' addresses */
    public List<RedisAddress> sentinels() {
        return sentinelNodes.stream().map(RedisServerProcess::address).toList();
    }

    /** @return the Sentinels as {@code host:port,host:port,...} ({@code spring.data.redis.sentinel.nodes}) */
    public String sentinelNodes() {
        return sentinels().stream().map(RedisAddress::toString).collect(Collectors.joining(","));
    }

    /** @return the Sentinel processes, e.g. to kill or pause one */
    public List<RedisServerProcess> sentinelProcesses() {
        return List.copyOf(sentinelNodes);
    }

    /** @return the three data servers (master and replicas, whatever their current roles) */
    public List<RedisServerProcess> servers() {
        return List.copyOf(dataNodes);
    }

    /**
     * Returns the current master as the first Sentinel that answers reports it
     * ({@code SENTINEL get-master-addr-by-name}).
     *
     * @return the master's process
     * @throws IllegalStateException when no Sentinel answers
     */
    public RedisServerProcess master() {
        RuntimeException last = null;
        for (RedisServerProcess sentinel : sentinelNodes) {
            if (!sentinel.isRunning() || sentinel.isPaused()) {
                continue;
            }
            try {
                return node(masterAddressFrom(sentinel));
            }
            catch (RuntimeException ex) {
                last = ex;
            }
        }
        throw new IllegalStateException("No Sentinel of '" + masterName + "' answered", last);
    }

    /** @return the data servers other than {@link #master()} */
    public List<RedisServerProcess> replicas() {
        RedisServerProcess master = master();
        return dataNodes.stream().filter(node -> node != master).toList();
    }

    /**
     * Kills the current master with {@code SIGKILL}.
     *
     * @return the killed process (it can be started again, or brought back as a replica by {@link #heal()})
     */
    public RedisServerProcess killMaster() {
        RedisServerProcess master = master();
        failedMaster = master.address();
        master.kill();
        return master;
    }

    /**
     * Freezes the current master with {@code SIGSTOP}; its connections stay open but nothing is answered.
     *
     * @return the paused process
     */
    public RedisServerProcess pauseMaster() {
        RedisServerProcess master = master();
        failedMaster = master.address();
        master.pause();
        return master;
    }

    /** Resumes every paused process of this topology (servers and Sentinels). */
    public void resume() {
        dataNodes.forEach(RedisServerProcess::resume);
        sentinelNodes.forEach(RedisServerProcess::resume);
    }

    /**
     * Waits until every reachable Sentinel reports a master other than the one last killed or paused, and that
     * server answers {@code ROLE} as a master (so it takes writes).
     *
     * @param timeout how long to wait; a failover normally takes 3 to 6 seconds
     * @return the new master
     * @throws IllegalStateException when nothing was killed or paused, or on timeout
     */
    public RedisServerProcess awaitFailover(Duration timeout) {
        RedisAddress failed = failedMaster;
        if (failed == null) {
            throw new IllegalStateException("No master was killed or paused");
        }
        long started = System.nanoTime();
        RedisServerProcess promoted = Poll.until("a failover away from " + failed, timeout, () -> {
            RedisAddress reported = agreedMaster();
            if (reported == null || reported.equals(failed)) {
                return Poll.notYet("Sentinels report " + reported);
            }
            RedisServerProcess candidate = node(reported);
            Object role = Replies.list(candidate.call("ROLE")).get(0);
            return "master".equals(role) ? candidate : Poll.notYet(reported + " has role " + role);
        });
        log.info("Sentinel failover from {} to {} observed after {} ms", failed, promoted.address(),
                (System.nanoTime() - started) / 1_000_000);
        return promoted;
    }

    /**
     * Brings the topology back to one master with two replicas and three Sentinels that agree on it, whatever
     * a test did: resumes paused processes, restarts killed ones (a killed master comes back as a replica of the
     * current one), points stray servers at the current master, and waits until replication is up and the
     * Sentinels see every replica again. Cheap when the topology is healthy.
     * <p>
     * A master killed without a failover (yet) is started again as the master the Sentinels still name; it comes
     * back empty (nothing is saved), and its replicas resynchronise from it.
     *
     * @throws IllegalStateException when the topology cannot be healed within 60 seconds
     */
    public void heal() {
        long started = System.nanoTime();
        resume();
        sentinelNodes.stream().filter(sentinel -> !sentinel.isRunning()).forEach(RedisServerProcess::start);
        Map<RedisServerProcess, Long> wrongSince = new HashMap<>();
        Poll.until("Sentinel topology " + masterName + " to heal", HEAL_TIMEOUT, () -> {
            RedisAddress reported = agreedMaster();
            if (reported == null) {
                return Poll.notYet("the Sentinels do not agree on a master");
            }
            RedisServerProcess master = node(reported);
            if (!master.isRunning()) {
                // Killed, and not failed over (yet): bring it back as the master the Sentinels still name.
                master.startWith("--replicaof", "no", "one");
            }
            for (RedisServerProcess node : dataNodes) {
                if (node != master) {
                    bringBackAsReplica(node, master, wrongSince);
                }
            }
            String problem = healthProblem(reported);
            return problem == null ? Boolean.TRUE : Poll.notYet(problem);
        });
        failedMaster = null;
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (millis > 100) {
            log.info("Sentinel topology '{}' healed in {} ms", masterName, millis);
        }
    }

    private void bringBackAsReplica(RedisServerProcess node, RedisServerProcess master,
            Map<RedisServerProcess, Long> wrongSince) {
        if (!node.isRunning()) {
            node.startWith("--replicaof", master.host(), String.valueOf(master.port()));
            return;
        }
        Map<String, String> replication = Replies.info(node.call("INFO", "replication"));
        boolean right = "slave".equals(replication.get("role"))
                && String.valueOf(master.port()).equals(replication.get("master_port"));
        if (right) {
            wrongSince.remove(node);
            return;
        }
        // Sentinel turns a returning old master into a replica by itself, but only after about 8 s; a failover in
        // progress also reconfigures replicas. Step in only when no failover is running and the role stayed wrong
        // for a moment (a server just resumed may not have been looked at by the Sentinels yet).
        long since = wrongSince.computeIfAbsent(node, key -> System.nanoTime());
        if (System.nanoTime() - since > CORRECTION_GRACE_NANOS && !failoverInProgress()) {
            log.info("heal: pointing {} at master {}", node.address(), master.address());
            node.call("REPLICAOF", master.host(), String.valueOf(master.port()));
            wrongSince.remove(node);
        }
    }

    private boolean failoverInProgress() {
        for (RedisServerProcess sentinel : sentinelNodes) {
            try {
                String flags = Replies.pairs(sentinel.call("SENTINEL", "MASTER", masterName)).get("flags");
                if (flags == null || flags.contains("failover")) {
                    return true;
                }
            }
            catch (RuntimeException ex) {
                return true; // cannot tell: do not interfere
            }
        }
        return false;
    }

    /**
     * Describes what is not healthy yet, with {@code master} as the expected master, or returns null when all is.
     */
    private @Nullable String healthProblem(RedisAddress master) {
        for (RedisServerProcess node : all()) {
            if (!node.isRunning() || node.isPaused()) {
                return node + " is not running";
            }
        }
        Map<String, String> masterInfo = Replies.info(node(master).call("INFO", "replication"));
        if (!"master".equals(masterInfo.get("role")) || !"2".equals(masterInfo.get("connected_slaves"))
                || masterInfo.entrySet().stream().filter(e -> e.getKey().matches("slave\\d+"))
                        .anyMatch(e -> !e.getValue().contains("state=online"))) {
            return master + " replication: " + masterInfo;
        }
        for (RedisServerProcess node : dataNodes) {
            if (!node.address().equals(master)) {
                Map<String, String> info = Replies.info(node.call("INFO", "replication"));
                if (!"slave".equals(info.get("role")) || !String.valueOf(master.port()).equals(info.get("master_port"))
                        || !"up".equals(info.get("master_link_status"))) {
                    return node.address() + " is not an up-to-date replica of " + master + ": role "
                            + info.get("role") + ", master port " + info.get("master_port") + ", link "
                            + info.get("master_link_status");
                }
            }
        }
        int tilted = 0;
        for (RedisServerProcess sentinel : sentinelNodes) {
            String problem = sentinelProblem(sentinel, master);
            if (problem != null) {
                return "Sentinel " + sentinel.address() + ": " + problem;
            }
            // A Sentinel in TILT mode (after it was frozen, or a scheduling hiccup of over 2 s) neither starts nor
            // votes for a failover for 30 s. One of three is fine: the other two still make quorum and majority.
            if (!"0".equals(Replies.info(sentinel.call("INFO", "sentinel")).get("sentinel_tilt"))) {
                tilted++;
            }
        }
        return tilted > 1 ? tilted + " Sentinels are in TILT mode" : null;
    }

    private @Nullable String sentinelProblem(RedisServerProcess sentinel, RedisAddress master) {
        RedisAddress reported = masterAddressFrom(sentinel);
        if (!master.equals(reported)) {
            return "reports master " + reported;
        }
        Map<String, String> state = Replies.pairs(sentinel.call("SENTINEL", "MASTER", masterName));
        if (!"master".equals(state.get("flags")) || !"2".equals(state.get("num-slaves"))
                || !String.valueOf(SENTINELS - 1).equals(state.get("num-other-sentinels"))) {
            return "master state flags=" + state.get("flags") + " num-slaves=" + state.get("num-slaves")
                    + " num-other-sentinels=" + state.get("num-other-sentinels");
        }
        // Only the flags: what a Sentinel knows of a replica's own replication state comes from an INFO it sends
        // every 10 s, and the replicas' actual state was checked above. No s_down or disconnected flag means the
        // Sentinel reaches the replica and will consider it for the next failover.
        for (Map<String, String> replica : Replies.pairsList(sentinel.call("SENTINEL", "REPLICAS", masterName))) {
            if (!"slave".equals(replica.get("flags"))) {
                return "replica " + replica.get("name") + " flags=" + replica.get("flags");
            }
        }
        return null;
    }

    /** The master every reachable Sentinel reports, or null while they disagree or none answers. */
    private @Nullable RedisAddress agreedMaster() {
        RedisAddress agreed = null;
        int answers = 0;
        for (RedisServerProcess sentinel : sentinelNodes) {
            if (!sentinel.isRunning() || sentinel.isPaused()) {
                continue;
            }
            RedisAddress reported = masterAddressFrom(sentinel);
            if (agreed != null && !agreed.equals(reported)) {
                return null;
            }
            agreed = reported;
            answers++;
        }
        return answers > SENTINELS / 2 ? agreed : null;
    }

    private RedisAddress masterAddressFrom(RedisServerProcess sentinel) {
        List<?> reply = Replies.list(sentinel.call("SENTINEL", "get-master-addr-by-name", masterName));
        return new RedisAddress(String.valueOf(reply.get(0)), Integer.parseInt(String.valueOf(reply.get(1))));
    }

    private RedisServerProcess node(RedisAddress address) {
        return dataNodes.stream().filter(node -> node.port() == address.port()).findFirst()
                .orElseThrow(() -> new IllegalStateException(address + " is not a server of this topology"));
    }

    private List<RedisServerProcess> all() {
        List<RedisServerProcess> all = new ArrayList<>(dataNodes);
        all.addAll(sentinelNodes);
        return all;
    }

    /** Deletes every key on the current master (the replicas follow). */
    public void flushAll() {
        master().call("FLUSHALL");
    }

    /**
     * Kills every process of the topology. Does nothing on a shared topology ({@link RedisTopologies}): that one
     * lives until the JVM exits.
     */
    @Override
    public void close() {
        if (shared) {
            return;
        }
        // Sentinels first, so that they do not start a failover while the servers go away.
        sentinelNodes.forEach(RedisServerProcess::kill);
        dataNodes.forEach(RedisServerProcess::kill);
    }

    @Override
    public String toString() {
        return "RedisSentinelTopology[" + masterName + ", servers " + dataNodes.stream().map(RedisServerProcess::port)
                .toList() + ", sentinels " + sentinelNodes.stream().map(RedisServerProcess::port).toList() + "]";
    }
}
