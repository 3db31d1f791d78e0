package dev.distlock.embedded;

import java.util.Comparator;
import java.util.List;

/**
 * The six processes of one {@link RedisClusterTopology} and the cluster as a reachable one of them sees it
 * ({@code CLUSTER NODES}): which process is which entry, and which serve slots. The cluster's own view is asked every
 * time, never cached, because a failover changes it behind the test's back.
 */
final class ClusterMembers {

    private final List<RedisServerProcess> nodes;

    /** @param nodes the node processes, whatever their current roles */
    ClusterMembers(List<RedisServerProcess> nodes) {
        this.nodes = List.copyOf(nodes);
    }

    /** @return every node process */
    List<RedisServerProcess> all() {
        return nodes;
    }

    /** @return the processes that run and are not frozen, so that they answer */
    List<RedisServerProcess> live() {
        return nodes.stream().filter(RedisServerProcess::isRunning).filter(node -> !node.isPaused()).toList();
    }

    /**
     * @return the cluster as the first reachable node sees it
     * @throws IllegalStateException when no node answers
     */
    List<ClusterNode> view() {
        RuntimeException last = null;
        for (RedisServerProcess node : live()) {
            try {
                return ClusterNode.parse(node.call("CLUSTER", "NODES"));
            }
            catch (RuntimeException ex) {
                last = ex;
            }
        }
        throw new IllegalStateException("No cluster node answers", last);
    }

    /** @return the masters serving slots, as {@link #view()} sees them, in slot order: index 0 serves slot 0 */
    List<ClusterNode> slotMasters() {
        return view().stream().filter(ClusterNode::isMaster).filter(node -> !node.slots().isEmpty())
                .sorted(Comparator.comparingInt(ClusterNode::firstSlot)).toList();
    }

    /**
     * @param entry a node as a {@code CLUSTER NODES} line names it
     * @return its process, found by port
     * @throws IllegalStateException when it is no node of this cluster
     */
    RedisServerProcess process(ClusterNode entry) {
        return nodes.stream().filter(node -> entry.address() != null && node.port() == entry.address().port())
                .findFirst()
                .orElseThrow(() -> new IllegalStateException(entry.address() + " is not a node of this cluster"));
    }
}
