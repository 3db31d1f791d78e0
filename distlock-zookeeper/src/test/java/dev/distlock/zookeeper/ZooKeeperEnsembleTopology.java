package dev.distlock.zookeeper;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.FaultKind;
import dev.distlock.test.support.campaign.Links;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.embedded.LoopbackPorts;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;

/**
 * A three-server ZooKeeper ensemble (Curator's {@link TestingCluster}, real servers in the test JVM; 300 ms ticks),
 * reached by every node through a proxy per server. Faults: a server stopped and restarted (the leader or a
 * follower); plus the campaign's partitions, delays and resets between a node and some servers.
 */
final class ZooKeeperEnsembleTopology implements CampaignTopology {

    private final TestingCluster cluster;

    private final List<InstanceSpec> specs = new ArrayList<>();

    private final Set<InstanceSpec> down = ConcurrentHashMap.newKeySet();

    private final Links links;

    ZooKeeperEnsembleTopology() {
        // Distinct ports chosen at once: Curator's own choice, one port at a time, can repeat one.
        int[] free = LoopbackPorts.distinct(9);
        for (int id = 1; id <= 3; id++) {
            int at = 3 * (id - 1);
            specs.add(new InstanceSpec(null, free[at], free[at + 1], free[at + 2], true, id, 300, -1));
        }
        cluster = new TestingCluster(specs.toArray(new InstanceSpec[0]));
        try {
            cluster.start();
        }
        catch (Exception ex) {
            throw new IllegalStateException("Could not start a ZooKeeper ensemble", ex);
        }
        links = Links.toServers(specs, InstanceSpec::getPort);
    }

    @Override
    public String name() {
        return "zookeeper";
    }

    @Override
    public String spec(String node) {
        return "zookeeper|" + links.addresses(node, "") + "|/campaign";
    }

    @Override
    public Links links() {
        return links;
    }

    @Override
    public List<FaultKind> serverFaults() {
        return List.of(FaultKind.KILL_SERVER);
    }

    @Override
    public Injected inject(FaultKind kind, Random random, Duration duration) {
        if (kind != FaultKind.KILL_SERVER) {
            throw new IllegalArgumentException("zookeeper cannot inject " + kind);
        }
        InstanceSpec spec = specs.get(random.nextInt(specs.size()));
        try {
            cluster.killServer(spec);
        }
        catch (Exception ex) {
            throw new IllegalStateException("Could not stop ZooKeeper server " + spec.getServerId(), ex);
        }
        down.add(spec);
        return new Injected("stop zookeeper server " + spec.getServerId() + ", start again", () -> restart(spec));
    }

    private void restart(InstanceSpec spec) {
        try {
            cluster.restartServer(spec);
            down.remove(spec);
        }
        catch (Exception ex) {
            throw new IllegalStateException("Could not restart ZooKeeper server " + spec.getServerId(), ex);
        }
    }

    @Override
    public void heal() {
        for (InstanceSpec spec : List.copyOf(down)) {
            restart(spec);
        }
    }

    @Override
    public long leaseMillis() {
        // Not used for the lease (a ZooKeeper lock lives as long as its session); kept for the engine's settings.
        return 4000;
    }

    @Override
    public String guarantee() {
        return "Mutual exclusion and increasing tokens while a quorum (2 of 3) is up: a lock is an ephemeral "
                + "sequential node, written through the quorum. A node cut off from the quorum is told its locks are "
                + "lost once its session is suspended; fails closed without a quorum.";
    }

    @Override
    public void close() {
        links.close();
        try {
            cluster.close();
        }
        catch (Exception ex) {
            // Closing at the end of a run.
        }
    }
}
