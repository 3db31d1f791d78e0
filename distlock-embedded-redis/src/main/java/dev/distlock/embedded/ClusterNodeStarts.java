package dev.distlock.embedded;

import java.util.Map;

/**
 * Starts one node of a {@link RedisClusterTopology}: a {@code redis-server} in cluster mode on a free loopback port
 * whose cluster bus port (the client port plus 10000) is free as well.
 */
final class ClusterNodeStarts {

    /** Redis 6.2 has no {@code cluster-port}: the cluster bus is always the client port plus 10000. */
    private static final int BUS_OFFSET = 10000;

    private ClusterNodeStarts() {
    }

    /**
     * Starts a node. Replicas fail over however long their master was gone ({@code cluster-replica-validity-factor
     * 0}), since tests pause masters for arbitrary times; the node keeps its {@code nodes.conf} in its work
     * directory, so that it rejoins with its old identity when started again.
     *
     * @param environment variables added to the node's process in every run, none for the JVM's own
     * @return the running node, not part of a cluster yet
     * @throws IllegalStateException when no node could be started on five ports in a row
     */
    static RedisServerProcess start(Map<String, String> environment) {
        // The port or its bus port may be taken between choosing and binding it: then another pair is tried.
        return LoopbackPorts.startRetried(ClusterNodeStarts::freeClusterPort, port -> withEnvironment(
                RedisServerProcess.builder().port(port), environment)
                .args("--cluster-enabled", "yes", "--cluster-config-file", "nodes.conf",
                        "--cluster-node-timeout", String.valueOf(RedisClusterTopology.NODE_TIMEOUT_MILLIS),
                        "--cluster-replica-validity-factor", "0",
                        "--repl-diskless-sync", "yes", "--repl-diskless-sync-delay", "0")
                .start());
    }

    private static RedisServerProcess.Builder withEnvironment(RedisServerProcess.Builder builder,
            Map<String, String> environment) {
        environment.forEach(builder::environment);
        return builder;
    }

    /** A free port whose bus port (port + 10000) is free as well, both below the ephemeral range (LoopbackPorts). */
    private static int freeClusterPort() {
        for (int attempt = 0; attempt < 200; attempt++) {
            int port = LoopbackPorts.freeBelow(LoopbackPorts.ephemeralStart() - BUS_OFFSET);
            if (port + BUS_OFFSET <= 65535 && LoopbackPorts.isFree(port + BUS_OFFSET)) {
                return port;
            }
        }
        throw new IllegalStateException("No free port with a free cluster bus port");
    }
}
