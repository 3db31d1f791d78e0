package dev.distlock.embedded;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a Sentinel deployment back to health after a test's faults ({@link RedisSentinelTopology#heal()}): restarts
 * what was killed, and points a stray server at the master the Sentinels name when Sentinel does not do it soon
 * enough by itself.
 */
final class SentinelRepair {

    /** The topology's own category, so that a logging configuration written for it still applies. */
    private static final Logger log = LoggerFactory.getLogger(RedisSentinelTopology.class);

    private static final Duration HEAL_TIMEOUT = Duration.ofSeconds(60);

    /** How long a node may report a wrong role before heal() corrects it itself instead of leaving it to Sentinel. */
    private static final long CORRECTION_GRACE_NANOS = Duration.ofSeconds(1).toNanos();

    private final SentinelMembers members;

    private final SentinelHealth health;

    /** @param members the topology's processes */
    SentinelRepair(SentinelMembers members) {
        this.members = members;
        this.health = new SentinelHealth(members);
    }

    /**
     * Resumes paused processes, starts killed Sentinels, then waits until the Sentinels agree on a master, starting
     * that master and the replicas again when they were killed and correcting replicas that follow no one.
     *
     * @throws IllegalStateException when the topology cannot be healed within 60 seconds
     */
    void heal() {
        members.all().forEach(RedisServerProcess::resume);
        members.sentinelNodes().stream().filter(sentinel -> !sentinel.isRunning()).forEach(RedisServerProcess::start);
        Map<RedisServerProcess, Long> wrongSince = new HashMap<>();
        Poll.until("Sentinel topology " + members.masterName() + " to heal", HEAL_TIMEOUT, () -> {
            RedisAddress reported = members.agreedMaster();
            if (reported == null) {
                return Poll.notYet("the Sentinels do not agree on a master");
            }
            RedisServerProcess master = members.node(reported);
            if (!master.isRunning()) {
                // Killed, and not failed over (yet): bring it back as the master the Sentinels still name.
                master.startWith("--replicaof", "no", "one");
            }
            for (RedisServerProcess node : members.dataNodes()) {
                if (node != master) {
                    bringBackAsReplica(node, master, wrongSince);
                }
            }
            String problem = health.problem(reported);
            return problem == null ? Boolean.TRUE : Poll.notYet(problem);
        });
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
        if (System.nanoTime() - since > CORRECTION_GRACE_NANOS && !members.failoverInProgress()) {
            log.info("heal: pointing {} at master {}", node.address(), master.address());
            node.call("REPLICAOF", master.host(), String.valueOf(master.port()));
            wrongSince.remove(node);
        }
    }
}
