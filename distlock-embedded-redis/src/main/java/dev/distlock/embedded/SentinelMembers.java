package dev.distlock.embedded;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The processes of one {@link RedisSentinelTopology} and what its Sentinels say about the master. The Sentinels are
 * asked every time, never cached, because a failover changes the answer behind the test's back.
 */
final class SentinelMembers {

    private final String masterName;

    private final List<RedisServerProcess> dataNodes;

    private final List<RedisServerProcess> sentinelNodes;

    /**
     * @param masterName the name the Sentinels monitor the master under
     * @param dataNodes the master and its replicas
     * @param sentinelNodes the Sentinels
     */
    SentinelMembers(String masterName, List<RedisServerProcess> dataNodes, List<RedisServerProcess> sentinelNodes) {
        this.masterName = masterName;
        this.dataNodes = dataNodes;
        this.sentinelNodes = sentinelNodes;
    }

    /** @return the name the Sentinels monitor the master under */
    String masterName() {
        return masterName;
    }

    /** @return the data servers, whatever their current roles */
    List<RedisServerProcess> dataNodes() {
        return dataNodes;
    }

    /** @return the Sentinels */
    List<RedisServerProcess> sentinelNodes() {
        return sentinelNodes;
    }

    /** @return the data servers, then the Sentinels */
    List<RedisServerProcess> all() {
        List<RedisServerProcess> all = new ArrayList<>(dataNodes);
        all.addAll(sentinelNodes);
        return all;
    }

    /** @return the master every reachable Sentinel reports, or null while they disagree or too few answer */
    @Nullable RedisAddress agreedMaster() {
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
        return answers > RedisSentinelTopology.SENTINELS / 2 ? agreed : null;
    }

    /**
     * @param sentinel a Sentinel
     * @return the master it reports ({@code SENTINEL get-master-addr-by-name})
     */
    RedisAddress masterAddressFrom(RedisServerProcess sentinel) {
        List<?> reply = Replies.list(sentinel.call("SENTINEL", "get-master-addr-by-name", masterName));
        return new RedisAddress(String.valueOf(reply.get(0)), Integer.parseInt(String.valueOf(reply.get(1))));
    }

    /** @return true while a Sentinel is failing the master over, or when one cannot tell */
    boolean failoverInProgress() {
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
     * @param address a data server's address, as a Sentinel reports it
     * @return its process
     * @throws IllegalStateException when it is no server of this topology
     */
    RedisServerProcess node(RedisAddress address) {
        return dataNodes.stream().filter(node -> node.port() == address.port()).findFirst()
                .orElseThrow(() -> new IllegalStateException(address + " is not a server of this topology"));
    }
}
