package dev.distlock.etcd;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.FaultKind;
import dev.distlock.test.support.campaign.Links;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.test.support.FaultProxy;
import org.jspecify.annotations.Nullable;

/**
 * Three etcd members started from the machine's binary (distlock-etcd's {@link EtcdTestCluster}: Debian's
 * {@code etcd}; without it the campaign on etcd is skipped with a visible message), reached by every node through a
 * proxy per member. Faults: a member killed (SIGKILL) or stopped cleanly and started again on its data, a member
 * frozen (SIGSTOP), and the partition of review 4's F4: one node cut off from every member while the other nodes
 * still reach etcd (its fixed leases must stop counting at their deadline although it cannot release them); plus
 * the campaign's delays and resets of a node's links.
 */
final class EtcdTopology implements CampaignTopology {

    private final EtcdTestCluster cluster = EtcdTestCluster.start(3);

    private final Set<Integer> paused = ConcurrentHashMap.newKeySet();

    private final Links links = Links.toServers(cluster.endpoints(),
            endpoint -> Integer.parseInt(endpoint.substring(endpoint.lastIndexOf(':') + 1)));

    @Override
    public String name() {
        return "etcd";
    }

    @Override
    public String spec(String node) {
        return "etcd|" + links.addresses(node, "http://");
    }

    @Override
    public Links links() {
        return links;
    }

    @Override
    public List<FaultKind> serverFaults() {
        return List.of(FaultKind.KILL_SERVER, FaultKind.RESTART_SERVER, FaultKind.PAUSE_SERVER, FaultKind.PARTITION);
    }

    @Override
    public Injected inject(FaultKind kind, Random random, Duration duration, @Nullable String busyNode) {
        if (kind == FaultKind.PARTITION) {
            // One node from every member (F4), aimed at a node working under a fixed lease when there is one; the
            // others keep reaching etcd and are granted its locks.
            List<String> nodes = new ArrayList<>(links.nodes());
            Collections.sort(nodes);
            int drawn = random.nextInt(nodes.size());
            String node = busyNode != null ? busyNode : nodes.get(drawn);
            List<FaultProxy> cut = links.of(node);
            cut.forEach(FaultProxy::drop);
            return new Injected("partition " + node + " from every etcd member" + (busyNode != null
                    ? " (it holds a lock)" : ""), () -> cut.forEach(FaultProxy::pass));
        }
        return inject(kind, random, duration);
    }

    @Override
    public Injected inject(FaultKind kind, Random random, Duration duration) {
        if (kind == FaultKind.PARTITION) {
            return inject(kind, random, duration, null);
        }
        int member = random.nextInt(cluster.size());
        switch (kind) {
            case KILL_SERVER:
                cluster.kill(member);
                return new Injected("SIGKILL etcd member " + member + ", start again", () -> cluster.startMember(member));
            case RESTART_SERVER:
                cluster.stop(member);
                return new Injected("stop etcd member " + member + " (SIGTERM), start again",
                        () -> cluster.startMember(member));
            case PAUSE_SERVER:
                cluster.pause(member);
                paused.add(member);
                return new Injected("SIGSTOP etcd member " + member, () -> resume(member));
            default:
                throw new IllegalArgumentException("etcd cannot inject " + kind);
        }
    }

    private void resume(int member) {
        cluster.resume(member);
        paused.remove(member);
    }

    @Override
    public void heal() {
        for (int member : List.copyOf(paused)) {
            resume(member);
        }
        for (int member = 0; member < cluster.size(); member++) {
            if (!cluster.running(member)) {
                cluster.startMember(member);
            }
        }
    }

    @Override
    public String guarantee() {
        return "Mutual exclusion and increasing tokens (create revisions) while a quorum (2 of 3) is up: a lock is a "
                + "key on an etcd lease, written through the quorum. A node cut off from etcd counts on a watchdog "
                + "lock only while a keep-alive confirmed its session, and on a fixed lease only until its deadline; "
                + "fails closed without a quorum.";
    }

    @Override
    public void close() {
        links.close();
        cluster.close();
    }
}
