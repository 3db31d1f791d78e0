package dev.distlock.embedded;

import java.time.Duration;
import java.util.List;
import java.util.Map;

/**
 * Waits for a Redis Cluster to fail over: the slots of every failed master served by another node that answers
 * {@code ROLE} as master, as every reachable node sees it, and {@code cluster_state:ok} everywhere. Every reachable
 * node is asked, because a client may be connected to any of them, and one that still routes a slot to the failed
 * master sends the client there.
 */
final class ClusterFailoverWait {

    private final ClusterMembers members;

    /** @param members the cluster's nodes */
    ClusterFailoverWait(ClusterMembers members) {
        this.members = members;
    }

    /**
     * @param failed each failed master, with the slot ranges it served when it failed, in the order they failed
     * @param timeout how long to wait
     * @return the node that took over the slots of the last failed master
     * @throws IllegalStateException on timeout
     */
    RedisServerProcess await(Map<RedisServerProcess, List<int[]>> failed, Duration timeout) {
        return Poll.until("a replica to take over the slots of " + failed.keySet(), timeout, () -> {
            RedisServerProcess last = null;
            for (Map.Entry<RedisServerProcess, List<int[]>> entry : failed.entrySet()) {
                last = takenOverBy(entry.getKey(), entry.getValue().get(0)[0]);
            }
            for (RedisServerProcess node : members.live()) {
                String state = Replies.info(node.call("CLUSTER", "INFO")).get("cluster_state");
                if (!"ok".equals(state)) {
                    return Poll.notYet(node.address() + " reports cluster_state:" + state);
                }
            }
            return last;
        });
    }

    /** The node every live node names as the slot's master, once it is not the failed one and acts as master. */
    private RedisServerProcess takenOverBy(RedisServerProcess failedNode, int slot) {
        RedisServerProcess owner = null;
        for (RedisServerProcess node : members.live()) {
            RedisServerProcess seen = ClusterNode.parse(node.call("CLUSTER", "NODES")).stream()
                    .filter(ClusterNode::isMaster).filter(entry -> entry.serves(slot)).findFirst()
                    .map(members::process).orElse(null);
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
}
