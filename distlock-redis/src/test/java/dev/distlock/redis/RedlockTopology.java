package dev.distlock.redis;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.FaultKind;
import dev.distlock.test.support.campaign.Links;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;

import dev.distlock.embedded.RedisServerGroup;
import dev.distlock.embedded.RedisServerProcess;

/**
 * Redlock over five independent masters, each with an AOF fsynced before every reply (a restarted master must not
 * forget a lock it granted: Redlock's own condition for safety), each reached by every node through a proxy of its
 * own. Faults: one or two masters killed (and restarted from the AOF), frozen, or restarted; plus the campaign's
 * partitions, delays and resets between one node and some masters.
 */
final class RedlockTopology implements CampaignTopology {

    private final RedisServerGroup masters = RedisServerGroup.start(5, "--appendonly", "yes", "--appendfsync",
            "always");

    private final Links links = Links.toServers(masters.servers(), RedisServerProcess::port);

    @Override
    public String name() {
        return "redlock";
    }

    @Override
    public String spec(String node) {
        return "redlock|" + links.addresses(node, "redis://");
    }

    @Override
    public Links links() {
        return links;
    }

    @Override
    public List<FaultKind> serverFaults() {
        return List.of(FaultKind.KILL_SERVER, FaultKind.PAUSE_SERVER, FaultKind.RESTART_SERVER);
    }

    @Override
    public Injected inject(FaultKind kind, Random random, Duration duration) {
        // A minority (one or two of five): the store must go on. Three would be a majority down, which only fails
        // closed; the partitions reach that case for single nodes.
        int count = kind == FaultKind.RESTART_SERVER ? 1 : 1 + random.nextInt(2);
        List<Integer> chosen = new ArrayList<>();
        while (chosen.size() < count) {
            int index = random.nextInt(masters.size());
            if (!chosen.contains(index)) {
                chosen.add(index);
            }
        }
        String which = "masters " + chosen;
        switch (kind) {
            case KILL_SERVER:
                chosen.forEach(masters::kill);
                return new Injected("SIGKILL redlock " + which + ", restart from the AOF",
                        () -> chosen.forEach(i -> masters.server(i).start()));
            case PAUSE_SERVER:
                chosen.forEach(masters::pause);
                return new Injected("SIGSTOP redlock " + which, () -> chosen.forEach(masters::resume));
            case RESTART_SERVER:
                chosen.forEach(i -> masters.server(i).stop());
                return new Injected("stop redlock " + which + ", start again",
                        () -> chosen.forEach(i -> masters.server(i).start()));
            default:
                throw new IllegalArgumentException("redlock cannot inject " + kind);
        }
    }

    @Override
    public void heal() {
        for (RedisServerProcess master : masters.servers()) {
            master.resume();
            master.start();
        }
    }

    @Override
    public String guarantee() {
        return "Mutual exclusion and increasing tokens while a majority (3 of 5) of masters is reachable, with "
                + "masters that keep their locks across restarts (AOF fsync always). Fails closed without a "
                + "majority. Safety rests on bounded clock drift and process pauses shorter than the lease.";
    }

    @Override
    public void close() {
        links.close();
        masters.close();
    }
}
