package dev.distlock.embedded;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Tells whether a {@link RedisClusterTopology} is as its start left it: every node running and reporting
 * {@code cluster_state:ok} with all slots served, the configured number of masters each with one connected, in-sync
 * replica, and every node agreeing on who serves which slots. Asks every node, not one: right after a failover or a
 * heal the nodes' views converge one by one.
 */
final class ClusterHealth {

    private ClusterHealth() {
    }

    /**
     * @param nodes every node of the cluster
     * @return what is not healthy yet, or null when the cluster is healthy
     */
    static @Nullable String problem(List<RedisServerProcess> nodes) {
        Map<Integer, String> ownerByRange = null;
        for (RedisServerProcess node : nodes) {
            if (!node.isRunning() || node.isPaused()) {
                return node + " is not running";
            }
            String problem = stateProblem(node);
            if (problem != null) {
                return problem;
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

    /** What a node's {@code CLUSTER INFO} says is wrong, or null. */
    private static @Nullable String stateProblem(RedisServerProcess node) {
        Map<String, String> info = Replies.info(node.call("CLUSTER", "INFO"));
        if (!"ok".equals(info.get("cluster_state")) || !"16384".equals(info.get("cluster_slots_ok"))
                || !String.valueOf(RedisClusterTopology.NODES).equals(info.get("cluster_known_nodes"))
                || !String.valueOf(RedisClusterTopology.MASTERS).equals(info.get("cluster_size"))) {
            return node.address() + ": cluster_state " + info.get("cluster_state") + ", slots ok "
                    + info.get("cluster_slots_ok") + ", known nodes " + info.get("cluster_known_nodes")
                    + ", size " + info.get("cluster_size");
        }
        return null;
    }
}
