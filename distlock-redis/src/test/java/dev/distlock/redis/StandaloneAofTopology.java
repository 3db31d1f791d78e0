package dev.distlock.redis;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.FaultKind;
import dev.distlock.test.support.campaign.Links;
import java.time.Duration;
import java.util.List;
import java.util.Random;

import dev.distlock.embedded.RedisServerProcess;

/**
 * One Redis server with an append-only file fsynced before every reply ({@code appendfsync always}), reached by each
 * node through a proxy of its own. Faults: SIGKILL and restart from the AOF, SIGSTOP, a clean restart; plus the
 * campaign's partitions, delays and resets of a node's link.
 */
final class StandaloneAofTopology implements CampaignTopology {

    private final RedisServerProcess server = RedisServerProcess.builder().appendOnly().start();

    private final Links links = new Links(List.of(server::port));

    @Override
    public String name() {
        return "standalone-aof";
    }

    @Override
    public String spec(String node) {
        return "redis|127.0.0.1:" + links.of(node).get(0).port() + "|0";
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
        switch (kind) {
            case KILL_SERVER:
                server.kill();
                return new Injected("SIGKILL redis " + server.port() + ", restart from the AOF", server::start);
            case PAUSE_SERVER:
                server.pause();
                return new Injected("SIGSTOP redis " + server.port(), server::resume);
            case RESTART_SERVER:
                server.stop();
                return new Injected("stop redis " + server.port() + ", start again", server::start);
            default:
                throw new IllegalArgumentException("standalone-aof cannot inject " + kind);
        }
    }

    @Override
    public void heal() {
        server.resume();
        server.start();
    }

    @Override
    public String guarantee() {
        return "Mutual exclusion and increasing tokens across crashes and restarts of the server: every lock write "
                + "and the token counter are in the AOF before the reply. Unavailable (fail closed) while the server "
                + "is down or unreachable.";
    }

    @Override
    public void close() {
        links.close();
        server.close();
    }
}
