package dev.distlock.embedded;

import java.util.Map;

import org.jspecify.annotations.Nullable;

/**
 * Tells whether a {@link RedisSentinelTopology} is as its start left it: every process running, the expected master
 * with both replicas online and in sync, and every Sentinel naming that master, seeing both replicas and the other
 * Sentinels, and at most one of them in TILT mode.
 */
final class SentinelHealth {

    private final SentinelMembers members;

    /** @param members the topology's processes */
    SentinelHealth(SentinelMembers members) {
        this.members = members;
    }

    /**
     * @param master the expected master
     * @return what is not healthy yet, or null when all is
     */
    @Nullable String problem(RedisAddress master) {
        for (RedisServerProcess node : members.all()) {
            if (!node.isRunning() || node.isPaused()) {
                return node + " is not running";
            }
        }
        Map<String, String> masterInfo = Replies.info(members.node(master).call("INFO", "replication"));
        if (!"master".equals(masterInfo.get("role")) || !"2".equals(masterInfo.get("connected_slaves"))
                || masterInfo.entrySet().stream().filter(e -> e.getKey().matches("slave\\d+"))
                        .anyMatch(e -> !e.getValue().contains("state=online"))) {
            return master + " replication: " + masterInfo;
        }
        for (RedisServerProcess node : members.dataNodes()) {
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
        for (RedisServerProcess sentinel : members.sentinelNodes()) {
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
        RedisAddress reported = members.masterAddressFrom(sentinel);
        if (!master.equals(reported)) {
            return "reports master " + reported;
        }
        String masterName = members.masterName();
        Map<String, String> state = Replies.pairs(sentinel.call("SENTINEL", "MASTER", masterName));
        if (!"master".equals(state.get("flags")) || !"2".equals(state.get("num-slaves"))
                || !String.valueOf(RedisSentinelTopology.SENTINELS - 1).equals(state.get("num-other-sentinels"))) {
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
}
