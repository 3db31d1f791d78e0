package dev.distlock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Brings a Redis Cluster back to health after a test's faults ({@link RedisClusterTopology#heal()}): resumes and
 * restarts nodes, and fixes what the cluster does not fix by itself — nodes that lost touch, stale identities of
 * nodes that joined afresh, and a slot-less master left without a role.
 */
final class ClusterRepair {

    /** The topology's own category, so that a logging configuration written for it still applies. */
    private static final Logger log = LoggerFactory.getLogger(RedisClusterTopology.class);

    private static final Duration HEAL_TIMEOUT = Duration.ofSeconds(60);

    /** How long a slot-less master may wait for the cluster to make it a replica before heal() does it. */
    private static final long CORRECTION_GRACE_NANOS = Duration.ofSeconds(3).toNanos();

    private final List<RedisServerProcess> nodes;

    /** @param nodes every node of the cluster */
    ClusterRepair(List<RedisServerProcess> nodes) {
        this.nodes = nodes;
    }

    /**
     * Resumes paused nodes, starts killed ones again, and corrects the cluster until it is healthy.
     *
     * @throws IllegalStateException when the cluster cannot be healed within 60 seconds
     */
    void heal() {
        nodes.forEach(RedisServerProcess::resume);
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
            String problem = ClusterHealth.problem(nodes);
            return problem == null ? Boolean.TRUE : Poll.notYet(problem);
        });
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
        RedisServerProcess anchor = nodes.stream()
                .max(Comparator.comparingInt(node -> ClusterNode.parse(node.call("CLUSTER", "NODES")).size()))
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
            adoptIfOrphan(node, orphanSince);
        }
    }

    /** Makes a slot-less master that stayed so past the grace a replica of a master that has none. */
    private void adoptIfOrphan(RedisServerProcess node, Map<RedisServerProcess, Long> orphanSince) {
        List<ClusterNode> own = ClusterNode.parse(node.call("CLUSTER", "NODES"));
        ClusterNode self = own.stream().filter(ClusterNode::isMyself).findFirst().orElseThrow();
        if (!self.isMaster() || !self.slots().isEmpty()) {
            orphanSince.remove(node);
            return;
        }
        long since = orphanSince.computeIfAbsent(node, key -> System.nanoTime());
        if (System.nanoTime() - since < CORRECTION_GRACE_NANOS) {
            return; // a rejoining old master is normally turned into a replica by the cluster itself
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
