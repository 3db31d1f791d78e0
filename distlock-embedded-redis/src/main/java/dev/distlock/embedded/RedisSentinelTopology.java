package dev.distlock.embedded;

import java.time.Duration;
import java.util.List;
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

    /** How many Sentinels must agree that the master is down before one fails it over. */
    static final int QUORUM = 2;

    /** How many Sentinels watch the master. */
    static final int SENTINELS = 3;

    private static final Logger log = LoggerFactory.getLogger(RedisSentinelTopology.class);

    private static final Duration START_TIMEOUT = Duration.ofSeconds(30);

    /** Full resynchronisation without the default 5 s wait for more replicas (Redis 7 syncs diskless by default). */
    private static final String[] DATA_ARGS = { "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0" };

    private final SentinelMembers members;

    private final boolean shared;

    private volatile @Nullable RedisAddress failedMaster;

    private RedisSentinelTopology(String masterName, List<RedisServerProcess> dataNodes,
            List<RedisServerProcess> sentinelNodes, boolean shared) {
        this.members = new SentinelMembers(masterName, dataNodes, sentinelNodes);
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
                SentinelStarts.start(masterName, master, data.subList(1, 3), sentinels);
                RedisSentinelTopology topology = new RedisSentinelTopology(masterName, data, sentinels, shared);
                SentinelHealth health = new SentinelHealth(topology.members);
                Poll.untilTrue("Sentinel topology " + masterName + " to be ready", START_TIMEOUT, () -> {
                    String problem = health.problem(master.address());
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

    /** @return the name the Sentinels monitor the master under ({@code spring.data.redis.sentinel.master}) */
    public String masterName() {
        return members.masterName();
    }

    /** @return the Sentinels' addresses */
    public List<RedisAddress> sentinels() {
        return members.sentinelNodes().stream().map(RedisServerProcess::address).toList();
    }

    /** @return the Sentinels as {@code host:port,host:port,...} ({@code spring.data.redis.sentinel.nodes}) */
    public String sentinelNodes() {
        return sentinels().stream().map(RedisAddress::toString).collect(Collectors.joining(","));
    }

    /** @return the Sentinel processes, e.g. to kill or pause one */
    public List<RedisServerProcess> sentinelProcesses() {
        return List.copyOf(members.sentinelNodes());
    }

    /** @return the three data servers (master and replicas, whatever their current roles) */
    public List<RedisServerProcess> servers() {
        return List.copyOf(members.dataNodes());
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
        for (RedisServerProcess sentinel : members.sentinelNodes()) {
            if (!sentinel.isRunning() || sentinel.isPaused()) {
                continue;
            }
            try {
                return members.node(members.masterAddressFrom(sentinel));
            }
            catch (RuntimeException ex) {
                last = ex;
            }
        }
        throw new IllegalStateException("No Sentinel of '" + masterName() + "' answered", last);
    }

    /** @return the data servers other than {@link #master()} */
    public List<RedisServerProcess> replicas() {
        RedisServerProcess master = master();
        return members.dataNodes().stream().filter(node -> node != master).toList();
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
        members.all().forEach(RedisServerProcess::resume);
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
            RedisAddress reported = members.agreedMaster();
            if (reported == null || reported.equals(failed)) {
                return Poll.notYet("Sentinels report " + reported);
            }
            RedisServerProcess candidate = members.node(reported);
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
        new SentinelRepair(members).heal();
        failedMaster = null;
        long millis = (System.nanoTime() - started) / 1_000_000;
        if (millis > 100) {
            log.info("Sentinel topology '{}' healed in {} ms", masterName(), millis);
        }
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
        members.sentinelNodes().forEach(RedisServerProcess::kill);
        members.dataNodes().forEach(RedisServerProcess::kill);
    }

    @Override
    public String toString() {
        return "RedisSentinelTopology[" + masterName() + ", servers "
                + members.dataNodes().stream().map(RedisServerProcess::port).toList() + ", sentinels "
                + members.sentinelNodes().stream().map(RedisServerProcess::port).toList() + "]";
    }
}
