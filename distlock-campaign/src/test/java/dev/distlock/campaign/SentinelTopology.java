package dev.distlock.campaign;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import dev.distlock.embedded.RedisServerProcess;

/**
 * Redis Sentinel (a master, two replicas, three Sentinels; {@link ProxiedSentinel}) with nodes that wait for one
 * replica's acknowledgement ({@code distlock.replication.min-replicas=1}). Every data server sits behind a proxy
 * that the replicas, the Sentinels and the nodes all go through. Faults: a failover (master SIGKILLed, a replica
 * promoted, the old master back as a replica), a server frozen (a master frozen past 2 s fails over), a replica
 * killed, and a server's proxy cut (a partition of its host: replication links included), slowed or reset.
 */
final class SentinelTopology implements CampaignTopology {

    private final ProxiedSentinel sentinel = new ProxiedSentinel();

    @Override
    public String name() {
        return "sentinel";
    }

    @Override
    public String spec(String node) {
        return "sentinel|" + ProxiedSentinel.MASTER_NAME + "|" + sentinel.sentinelNodes() + "|1";
    }

    @Override
    public Links links() {
        return null;
    }

    @Override
    public List<FaultKind> serverFaults() {
        return List.of(FaultKind.FAILOVER, FaultKind.PAUSE_SERVER, FaultKind.KILL_SERVER, FaultKind.PARTITION,
                FaultKind.DELAY, FaultKind.RESET);
    }

    @Override
    public Injected inject(FaultKind kind, Random random, Duration duration) {
        int master = sentinel.agreedMaster();
        if (master < 0) {
            throw new IllegalStateException("The Sentinels do not agree on a master");
        }
        int any = random.nextInt(3);
        int replica = (master + 1 + random.nextInt(2)) % 3;
        RedisServerProcess server = sentinel.servers().get(any);
        FaultProxy proxy = sentinel.proxies().get(any);
        String role = any == master ? "master" : "replica";
        Runnable heal = () -> sentinel.heal(Duration.ofSeconds(60));
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
                proxy.drop();
                return new Injected("partition " + role + " redis-" + any + " from everyone", heal);
            case DELAY: {
                Duration delay = Duration.ofMillis(20 + random.nextInt(480));
                proxy.delay(delay);
                return new Injected("delay " + delay.toMillis() + " ms to and from " + role + " redis-" + any, heal);
            }
            case RESET:
                proxy.refuse();
                proxy.resetConnections();
                return new Injected("reset and refuse connections to " + role + " redis-" + any, heal);
            default:
                throw new IllegalArgumentException("sentinel cannot inject " + kind);
        }
    }

    @Override
    public void heal() {
        sentinel.heal(Duration.ofSeconds(60));
    }

    @Override
    public String guarantee() {
        return "With replica acknowledgement (min-replicas=1), a grant survives a failover: it reached a replica "
                + "before the acquire returned. Renewals are acknowledged only once the replication fix is in "
                + "(see PartitionedMasterTests): until then an isolated old master can keep a holder renewing, "
                + "unreported, while the promoted replica grants the lock again.";
    }

    @Override
    public void close() {
        sentinel.close();
    }
}
