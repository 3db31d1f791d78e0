package dev.distlock.redis;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.FaultKind;
import dev.distlock.test.support.campaign.Links;
import java.time.Duration;
import java.util.List;
import java.util.Random;

import dev.distlock.embedded.RedisClusterTopology;
import dev.distlock.embedded.RedisServerProcess;

/**
 * A Redis Cluster of three masters with a replica each, nodes with {@code distlock.replication.min-replicas=1}.
 * Faults: a master killed until its replica takes over (the old master comes back as a replica), a master frozen
 * (past the node timeout, which also fails it over). No proxies: nodes learn the servers' addresses from the
 * cluster itself ({@code CLUSTER SLOTS}), which names the servers' own ports.
 */
final class ClusterTopology implements CampaignTopology {

    private final RedisClusterTopology cluster = RedisClusterTopology.start();

    @Override
    public String name() {
        return "cluster";
    }

    @Override
    public String spec(String node) {
        return "cluster|" + cluster.clusterNodes() + "|1";
    }

    @Override
    public Links links() {
        return null;
    }

    @Override
    public List<FaultKind> serverFaults() {
        return List.of(FaultKind.FAILOVER, FaultKind.PAUSE_SERVER);
    }

    @Override
    public Injected inject(FaultKind kind, Random random, Duration duration) {
        int index = random.nextInt(3);
        switch (kind) {
            case FAILOVER: {
                RedisServerProcess killed = cluster.killMaster(index);
                RedisServerProcess promoted = cluster.awaitFailover(Duration.ofSeconds(30));
                return new Injected("SIGKILL cluster master " + killed.port() + ", failed over to "
                        + promoted.port(), cluster::heal);
            }
            case PAUSE_SERVER: {
                RedisServerProcess paused = cluster.pauseMaster(index);
                return new Injected("SIGSTOP cluster master " + paused.port(), () -> {
                    cluster.resume();
                    cluster.heal();
                });
            }
            default:
                throw new IllegalArgumentException("cluster cannot inject " + kind);
        }
    }

    @Override
    public void heal() {
        cluster.heal();
    }

    @Override
    public String guarantee() {
        return "With replica acknowledgement (min-replicas=1, one replica per master), a grant survives the "
                + "failover of its shard; tokens increase across it as long as the hosts' clocks agree (the token "
                + "follows the server clock after a failover).";
    }

    @Override
    public void close() {
        cluster.close();
    }
}
