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
import java.util.stream.Stream;

import dev.distlock.embedded.RedisServerBinary;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.test.support.FaultProxy;
import org.jspecify.annotations.Nullable;

/**
 * Redis Sentinel (a master, two replicas, three Sentinels; {@link ProxiedSentinel}) with nodes that wait for both
 * replicas' acknowledgement ({@code distlock.replication.min-replicas=2}): with one of two, a failover while the old
 * master still runs (the Sentinels lost sight of it, as happens on a loaded host) lets it grant with the replica not
 * yet moved to the new master, which then resyncs without the lock (the 60-minute run's one overlap, see
 * docs/engineering/reliability.md). Every data server sits behind a proxy
 * that the replicas and the Sentinels go through; each node reaches every data server and every Sentinel through
 * proxies of its own ({@link Links}; the addresses the Sentinels hand out are mapped onto them).
 * <p>
 * Faults: a failover (master SIGKILLed, a replica promoted, the old master back as a replica); a server frozen (a
 * master frozen past 2 s fails over); a replica killed; a server cut off from everyone (replication links
 * included), slowed or reset; the partition of review §6, {old master + one node} | {replicas + Sentinels + the other
 * nodes}; one data server's wall clock stepped or drifting, master or replica (each data server has a clock of its
 * own, libfaketime where installed: {@link ClockFaults}; a failover hands the tokens of a free name to the promoted
 * replica's clock); and the campaign's partitions, delays and resets between one node and some servers or
 * Sentinels. The Sentinels' clocks are the machine's ({@link ProxiedSentinel#ProxiedSentinel(List)}).
 */
final class SentinelTopology implements CampaignTopology {

    /** Every replica: what covers any single failover (docs/how-to/sentinel-cluster-redlock.md). */
    private static final int MIN_REPLICAS = 2;

    /** One clock per data server, prepared together (none without libfaketime); never the Sentinels'. */
    private final List<FakedClock> clocks = ClockFaults.prepareEach(RedisServerBinary.path(),
            List.of("redis-0", "redis-1", "redis-2"));

    private final ProxiedSentinel sentinel = startSentinel(clocks);

    private final Links links = Links.toServers(
            Stream.concat(sentinel.servers().stream(), sentinel.sentinels().stream()).toList(),
            RedisServerProcess::port);

    private static ProxiedSentinel startSentinel(List<FakedClock> clocks) {
        try {
            return new ProxiedSentinel(clocks);
        }
        catch (RuntimeException ex) {
            clocks.forEach(FakedClock::close);
            throw ex;
        }
    }

    @Override
    public String name() {
        return "sentinel";
    }

    @Override
    public String spec(String node) {
        List<FaultProxy> own = links.of(node);
        String sentinels = own.subList(3, 6).stream().map(proxy -> "127.0.0.1:" + proxy.port())
                .collect(Collectors.joining(","));
        List<String> mapping = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            mapping.add(sentinel.proxies().get(i).port() + ">" + own.get(i).port());
        }
        return "sentinel|" + ProxiedSentinel.MASTER_NAME + "|" + sentinels + "|" + MIN_REPLICAS + "|"
                + String.join(",", mapping);
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
                FaultKind.KILL_SERVER, FaultKind.PARTITION, FaultKind.DELAY, FaultKind.RESET,
                FaultKind.PARTITION_MASTER_WITH_NODE));
        faults.addAll(ClockFaults.kinds(clocks));
        return faults;
    }

    /** Every way to server {@code index}: the proxy the replicas and Sentinels use, and each node's own. */
    private List<FaultProxy> waysTo(int index) {
        List<FaultProxy> ways = new ArrayList<>();
        ways.add(sentinel.proxies().get(index));
        for (String node : links.nodes()) {
            ways.add(links.of(node).get(index));
        }
        return ways;
    }

    @Override
    public Injected inject(FaultKind kind, Random random, Duration duration) {
        return inject(kind, random, duration, null);
    }

    @Override
    public Injected inject(FaultKind kind, Random random, Duration duration, @Nullable String busyNode) {
        int master = sentinel.agreedMaster();
        if (master < 0) {
            throw new IllegalStateException("The Sentinels do not agree on a master");
        }
        int any = random.nextInt(3);
        int replica = (master + 1 + random.nextInt(2)) % 3;
        RedisServerProcess server = sentinel.servers().get(any);
        String role = any == master ? "master" : "replica";
        Runnable heal = () -> {
            links.passAll();
            sentinel.heal(Duration.ofSeconds(60));
        };
        boolean wholeServer = random.nextBoolean();
        switch (kind) {
            case FAILOVER: {
                sentinel.servers().get(master).kill();
                int promoted = sentinel.awaitFailover(master, Duration.ofSeconds(30));
                return new Injected("SIGKILL master redis-" + master + ", failed over to redis-" + promoted, heal);
            }
            case PAUSE_SERVER:
                server.pause();
                return new Injected("SIGSTOP " + role + " redis-" + any, heal);
            case KILL_SERVER:
                sentinel.servers().get(replica).kill();
                return new Injected("SIGKILL replica redis-" + replica + ", restart as a replica", heal);
            case PARTITION:
                if (!wholeServer) {
                    return null; // one node's links: the campaign's own partition
                }
                waysTo(any).forEach(FaultProxy::drop);
                return new Injected("partition " + role + " redis-" + any + " from everyone", heal);
            case DELAY: {
                if (!wholeServer) {
                    return null;
                }
                Duration delay = Duration.ofMillis(20 + random.nextInt(480));
                waysTo(any).forEach(proxy -> proxy.delay(delay));
                return new Injected("delay " + delay.toMillis() + " ms to and from " + role + " redis-" + any, heal);
            }
            case RESET:
                if (!wholeServer) {
                    return null;
                }
                waysTo(any).forEach(proxy -> {
                    proxy.refuse();
                    proxy.resetConnections();
                });
                return new Injected("reset and refuse connections to " + role + " redis-" + any, heal);
            case PARTITION_MASTER_WITH_NODE:
                return partitionMasterWithNode(master, random, busyNode, heal);
            case CLOCK_STEP:
            case CLOCK_DRIFT: {
                Injected injected = ClockFaults.inject(kind, clocks.get(any), random, duration);
                return new Injected(injected.description() + " (" + role + ")", injected.heal());
            }
            default:
                throw new IllegalArgumentException("sentinel cannot inject " + kind);
        }
    }

    /**
     * {old master + one node} | {replicas + Sentinels + the other nodes}: the majority side's connections to the
     * old master are reset (so that its nodes ask the Sentinels again), the isolated node's links to everything else
     * are blackholed; the isolated node is the one in the middle of a long hold when there is one. Lasts until the
     * Sentinels promoted a replica and one lease more, so that the lock's keys can expire on the promoted replica
     * while the isolated node still reaches the old master.
     */
    private Injected partitionMasterWithNode(int master, Random random, @Nullable String busyNode, Runnable heal) {
        List<String> nodes = new ArrayList<>(links.nodes());
        Collections.sort(nodes);
        String isolated = busyNode != null && nodes.contains(busyNode) ? busyNode
                : nodes.get(random.nextInt(nodes.size()));
        FaultProxy everyone = sentinel.proxies().get(master);
        everyone.refuse();
        everyone.resetConnections();
        for (String node : nodes) {
            List<FaultProxy> own = links.of(node);
            for (int i = 0; i < own.size(); i++) {
                if (node.equals(isolated) && i != master) {
                    own.get(i).drop();
                }
                else if (!node.equals(isolated) && i == master) {
                    own.get(i).refuse();
                    own.get(i).resetConnections();
                }
            }
        }
        int promoted = sentinel.awaitFailover(master, Duration.ofSeconds(30));
        try {
            // The partition outlasts one lease after the failover: this wait is the fault's duration.
            TimeUnit.MILLISECONDS.sleep(leaseMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return new Injected("partition {redis-" + master + " + " + isolated + "} | {the rest}, redis-" + promoted
                + " promoted", heal);
    }

    @Override
    public void heal() {
        clocks.forEach(FakedClock::stopDrift);
        links.passAll();
        sentinel.heal(Duration.ofSeconds(60));
    }

    @Override
    public String guarantee() {
        return "With every replica's acknowledgement (min-replicas=2), a grant survives any single failover: it "
                + "reached the promoted replica before the acquire returned, and an old master still running cannot "
                + "grant once a replica was promoted; renewals are acknowledged too, so a node partitioned with the "
                + "old master is told of its loss before the promoted replica grants the lock again "
                + "(PartitionedMasterTests). Each data server's clock (PX expiry, tokens for a free name) may run up "
                + "to 0.9 % fast or step forward, gaining at most 10 ms in any second: inside the holders' drift "
                + "margin; the servers' clocks drift apart by what the faults add up to, and after a failover "
                + "tokens come from the promoted replica's clock (max(last + 1, clock), last replicated). The "
                + "Sentinels run on the machine's clock.";
    }

    @Override
    public void close() {
        links.close();
        sentinel.close();
        clocks.forEach(FakedClock::close);
    }
}
