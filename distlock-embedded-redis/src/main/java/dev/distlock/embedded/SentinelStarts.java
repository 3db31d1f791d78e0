package dev.distlock.embedded;

import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;

/**
 * Starts the Sentinels of a {@link RedisSentinelTopology}, each with a config that already names the master, its
 * replicas and the other Sentinels, with the topology's short timeouts.
 */
final class SentinelStarts {

    private SentinelStarts() {
    }

    /**
     * Starts {@link RedisSentinelTopology#SENTINELS} Sentinels on free ports. The ports are chosen before the
     * Sentinels start, since each config names the others: one may be taken in between, and the start then fails.
     *
     * @param masterName the name they monitor the master under
     * @param master the master
     * @param replicas its replicas
     * @param sentinels receives each Sentinel as soon as it started, so that the caller can kill it on a failure
     */
    static void start(String masterName, RedisServerProcess master, List<RedisServerProcess> replicas,
            List<RedisServerProcess> sentinels) {
        int count = RedisSentinelTopology.SENTINELS;
        List<Integer> ports = new ArrayList<>();
        while (ports.size() < count) {
            int port = LoopbackPorts.free();
            if (!ports.contains(port)) {
                ports.add(port);
            }
        }
        SecureRandom random = new SecureRandom();
        List<String> ids = new ArrayList<>();
        for (int i = 0; i < count; i++) {
            byte[] id = new byte[20];
            random.nextBytes(id);
            ids.add(HexFormat.of().formatHex(id));
        }
        for (int i = 0; i < count; i++) {
            String config = config(masterName, master, replicas, ports, ids, i);
            sentinels.add(RedisServerProcess.builder().sentinel().port(ports.get(i)).config(config).start());
        }
    }

    /**
     * The config of one Sentinel. It is told about the replicas and the other Sentinels up front (the same lines
     * Sentinel writes into its own config), so that it need not discover them through INFO and hello messages,
     * which takes several seconds.
     */
    private static String config(String masterName, RedisServerProcess master, List<RedisServerProcess> replicas,
            List<Integer> ports, List<String> ids, int self) {
        StringBuilder config = new StringBuilder();
        config.append("sentinel myid ").append(ids.get(self)).append('\n');
        config.append("sentinel monitor ").append(masterName).append(' ').append(master.host()).append(' ')
                .append(master.port()).append(' ').append(RedisSentinelTopology.QUORUM).append('\n');
        config.append("sentinel down-after-milliseconds ").append(masterName).append(' ')
                .append(RedisSentinelTopology.DOWN_AFTER_MILLIS).append('\n');
        config.append("sentinel failover-timeout ").append(masterName).append(' ')
                .append(RedisSentinelTopology.FAILOVER_TIMEOUT_MILLIS).append('\n');
        config.append("sentinel parallel-syncs ").append(masterName).append(" 1\n");
        for (RedisServerProcess replica : replicas) {
            config.append("sentinel known-replica ").append(masterName).append(' ').append(replica.host())
                    .append(' ').append(replica.port()).append('\n');
        }
        for (int j = 0; j < ports.size(); j++) {
            if (j != self) {
                config.append("sentinel known-sentinel ").append(masterName).append(" 127.0.0.1 ")
                        .append(ports.get(j)).append(' ').append(ids.get(j)).append('\n');
            }
        }
        return config.toString();
    }
}
