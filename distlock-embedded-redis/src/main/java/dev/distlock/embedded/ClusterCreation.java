package dev.distlock.embedded;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * Makes started cluster-mode nodes one Redis Cluster with the server's own commands, as
 * {@code redis-cli --cluster create} would: the first {@link RedisClusterTopology#MASTERS} nodes get the slots
 * (split as redis-cli splits them), all nodes meet, and each of the others replicates one master.
 */
final class ClusterCreation {

    private static final Duration START_TIMEOUT = Duration.ofSeconds(60);

    private ClusterCreation() {
    }

    /**
     * Creates the cluster and returns once it is healthy ({@link ClusterHealth}).
     *
     * @param nodes {@link RedisClusterTopology#NODES} fresh nodes: masters first, then one replica per master
     * @throws IllegalStateException when the cluster is not healthy within 60 seconds
     */
    static void create(List<RedisServerProcess> nodes) {
        int masters = RedisClusterTopology.MASTERS;
        // Distinct config epochs before the nodes meet, as redis-cli does, so that no epoch collision has to be
        // resolved later.
        for (int i = 0; i < nodes.size(); i++) {
            nodes.get(i).call("CLUSTER", "SET-CONFIG-EPOCH", String.valueOf(i + 1));
        }
        assignSlots(nodes.subList(0, masters));
        RedisServerProcess introducer = nodes.get(0);
        for (int i = 1; i < nodes.size(); i++) {
            introducer.call("CLUSTER", "MEET", nodes.get(i).host(), String.valueOf(nodes.get(i).port()));
        }
        Poll.untilTrue("every cluster node to know the others", START_TIMEOUT, () -> {
            for (RedisServerProcess node : nodes) {
                List<ClusterNode> view = ClusterNode.parse(node.call("CLUSTER", "NODES"));
                if (view.size() != nodes.size() || view.stream().anyMatch(ClusterNode::isTroubled)) {
                    return Poll.notYet(node.address() + " sees " + view.size() + " nodes");
                }
            }
            return true;
        });
        for (int i = 0; i < masters; i++) {
            String masterId = String.valueOf(nodes.get(i).call("CLUSTER", "MYID"));
            nodes.get(masters + i).call("CLUSTER", "REPLICATE", masterId);
        }
        Poll.untilTrue("the cluster to be ok", START_TIMEOUT, () -> {
            String problem = ClusterHealth.problem(nodes);
            return problem == null ? Boolean.TRUE : Poll.notYet(problem);
        });
    }

    /** Splits the slots as redis-cli does; for three masters 0-5460, 5461-10922, 10923-16383. */
    private static void assignSlots(List<RedisServerProcess> masters) {
        int firstSlot = 0;
        for (int i = 0; i < masters.size(); i++) {
            int last = i == masters.size() - 1 ? ClusterSlots.SLOT_COUNT - 1
                    : (int) Math.round((i + 1) * (double) ClusterSlots.SLOT_COUNT / masters.size() - 1);
            // CLUSTER ADDSLOTSRANGE needs Redis 7; ADDSLOTS with every slot works everywhere.
            List<String> command = new ArrayList<>(List.of("CLUSTER", "ADDSLOTS"));
            for (int slot = firstSlot; slot <= last; slot++) {
                command.add(String.valueOf(slot));
            }
            try (RespConnection connection = RespConnection.open(masters.get(i).address(),
                    RespConnection.DEFAULT_TIMEOUT)) {
                connection.call(command);
            }
            firstSlot = last + 1;
        }
    }
}
