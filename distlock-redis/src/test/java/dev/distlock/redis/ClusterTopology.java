package dev.distlock.redis;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.ClockFaults;
import dev.distlock.test.support.campaign.FakedClock;
import dev.distlock.test.support.campaign.FaultKind;
import dev.distlock.test.support.campaign.Links;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.IntStream;

import dev.distlock.embedded.RedisClusterTopology;
import dev.distlock.embedded.RedisServerBinary;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.test.support.FaultProxy;
import org.jspecify.annotations.Nullable;

/**
 * A Redis Cluster of three masters with a replica each, nodes with {@code distlock.replication.min-replicas=1}.
 * Each node reaches each of the six servers through a proxy of its own ({@link Links}): nodes learn the servers'
 * addresses from the cluster itself ({@code CLUSTER NODES}/{@code CLUSTER SLOTS}, which name the servers' own
 * ports), so a node's client maps every server's port onto its own proxy to that server (a Lettuce
 * {@code MappingSocketAddressResolver}, the spec's last field), the seed nodes included. All six are mapped, so
 * the mapping still holds after a failover has changed which servers are masters.
 * <p>
 * Faults: a master killed until its replica takes over (the old master comes back as a replica); a master frozen
 * (past the node timeout, which also fails it over); one node cut off from one shard's master (the node holding a
 * lock when there is one), or the campaign's partitions, delays and resets of some of a node's links; a shard
 * failed over under partition: one node cut off from a master, which is then killed and failed over while the
 * node stays cut off from it; and one server's wall clock stepped or drifting, master or replica (each of the six
 * has a clock of its own, libfaketime where installed: {@link ClockFaults}; a failover hands the tokens of a free
 * name to the promoted replica's clock).
 */
final class ClusterTopology implements CampaignTopology {

    /** How long the cut-off node's calls to the master fail before the master is killed: half a lease. */
    private static final long CUT_BEFORE_KILL_MILLIS = 1000;

    /** One clock per server, in start order, prepared together (none without libfaketime). */
    private final List<FakedClock> clocks = ClockFaults.prepareEach(RedisServerBinary.path(),
            IntStream.range(0, 6).mapToObj(i -> "cluster server " + i).toList());

    private final RedisClusterTopology cluster = startCluster(clocks);

    private final Links links = Links.toServers(cluster.servers(), RedisServerProcess::port);

    /** The cluster, each server under its own clock if there are clocks (kept when a server is restarted). */
    private static RedisClusterTopology startCluster(List<FakedClock> clocks) {
        try {
            return clocks.isEmpty() ? RedisClusterTopology.start()
                    : RedisClusterTopology.start(clocks.stream().map(FakedClock::environment).toList());
        }
        catch (RuntimeException ex) {
            clocks.forEach(FakedClock::close);
            throw ex;
        }
    }

    @Override
    public String name() {
        return "cluster";
    }

    @Override
    public String spec(String node) {
        String mapping = links.of(node).stream().map(proxy -> proxy.targetPort() + ">" + proxy.port())
                .collect(Collectors.joining(","));
        return "cluster|" + cluster.clusterNodes() + "|1|" + mapping;
    }

    /** @return the cluster, for tests that look at its masters */
    RedisClusterTopology cluster() {
        return cluster;
    }

    @Override
    public Links links() {
        return links;
    }

    @Override
    public long fixedLeaseMillis() {
        return ClockFaults.fixedLeaseMillis(clocks);
    }

    @Override
    public List<FaultKind> serverFaults() {
        List<FaultKind> faults = new ArrayList<>(List.of(FaultKind.FAILOVER, FaultKind.PAUSE_SERVER,
                FaultKind.PARTITION, FaultKind.FAILOVER_UNDER_PARTITION));
        faults.addAll(ClockFaults.kinds(clocks));
        return faults;
    }

    @Override
    public Injected inject(FaultKind kind, Random random, Duration duration) {
        return inject(kind, random, duration, null);
    }

    @Override
    public @Nullable Injected inject(FaultKind kind, Random random, Duration duration, @Nullable String busyNode) {
        int index = random.nextInt(3);
        switch (kind) {
            case FAILOVER: {
                RedisServerProcess killed = cluster.killMaster(index);
                RedisServerProcess promoted = cluster.awaitFailover(Duration.ofSeconds(30));
                return new Injected("SIGKILL cluster master " + killed.port() + ", failed over to "
                        + promoted.port(), this::heal);
            }
            case PAUSE_SERVER: {
                RedisServerProcess paused = cluster.pauseMaster(index);
                return new Injected("SIGSTOP cluster master " + paused.port(), () -> {
                    cluster.resume();
                    heal();
                });
            }
            case PARTITION: {
                if (random.nextBoolean()) {
                    return null; // some of one node's links: the campaign's own partition
                }
                String node = nodeOf(busyNode, random);
                RedisServerProcess master = cluster.masters().get(index);
                proxyOf(node, master).drop();
                return new Injected("partition " + node + " from shard " + index + "'s master " + master.port(),
                        this::heal);
            }
            case FAILOVER_UNDER_PARTITION:
                return failoverUnderPartition(index, nodeOf(busyNode, random));
            case CLOCK_STEP:
            case CLOCK_DRIFT: {
                int server = random.nextInt(clocks.size());
                RedisServerProcess process = cluster.servers().get(server);
                String role = cluster.masters().contains(process) ? "master" : "replica";
                Injected injected = ClockFaults.inject(kind, clocks.get(server), random, duration);
                return new Injected(injected.description() + " (" + role + " " + process.port() + ")",
                        injected.heal());
            }
            default:
                throw new IllegalArgumentException("cluster cannot inject " + kind);
        }
    }

    /**
     * One node cut off from shard {@code index}'s master; once its calls there failed for half a lease, the master
     * is killed and its replica promoted while the node is still cut off from it (it reaches the promoted replica,
     * and every other server, as before). The kill is not seen through the partition: the node's connections to
     * the old master go silent, they are not closed.
     */
    private Injected failoverUnderPartition(int index, String node) {
        RedisServerProcess master = cluster.masters().get(index);
        proxyOf(node, master).drop();
        try {
            // The partition alone first: this wait is part of the fault.
            TimeUnit.MILLISECONDS.sleep(CUT_BEFORE_KILL_MILLIS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        cluster.killMaster(index);
        RedisServerProcess promoted = cluster.awaitFailover(Duration.ofSeconds(30));
        return new Injected("partition " + node + " from shard " + index + "'s master " + master.port()
                + ", SIGKILL it, failed over to " + promoted.port(), this::heal);
    }

    /** The node in the middle of a hold when there is one, else one drawn from the nodes with links. */
    private String nodeOf(@Nullable String busyNode, Random random) {
        List<String> nodes = new ArrayList<>(links.nodes());
        Collections.sort(nodes);
        return busyNode != null && nodes.contains(busyNode) ? busyNode : nodes.get(random.nextInt(nodes.size()));
    }

    /** A node's own proxy to a server. */
    private FaultProxy proxyOf(String node, RedisServerProcess server) {
        return links.of(node).stream().filter(proxy -> proxy.targetPort() == server.port()).findFirst()
                .orElseThrow(() -> new IllegalStateException(node + " has no proxy to " + server.port()));
    }

    @Override
    public void heal() {
        clocks.forEach(FakedClock::stopDrift);
        links.passAll();
        cluster.heal();
    }

    @Override
    public String guarantee() {
        return "With replica acknowledgement (min-replicas=1, one replica per master), a grant survives the "
                + "failover of its shard, also while a node is cut off from that shard's master; tokens increase "
                + "across it as long as the servers' clocks stay within the time between two grants of a name "
                + "(after a failover, tokens come from the promoted replica's clock: max(last + 1, clock), last "
                + "replicated). A node cut off from a shard fails closed on that shard's locks. Each server's clock "
                + "(PX expiry, tokens for a free name) may run up to 0.9 % fast or step forward, gaining at most "
                + "10 ms in any second: inside the holders' drift margin; the servers' clocks drift apart by what "
                + "the faults add up to.";
    }

    @Override
    public void close() {
        links.close();
        cluster.close();
        clocks.forEach(FakedClock::close);
    }
}
