package dev.distlock.redis;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.ClockFaults;
import dev.distlock.test.support.campaign.FakedClock;
import dev.distlock.test.support.campaign.FaultKind;
import dev.distlock.test.support.campaign.Links;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;

import dev.distlock.embedded.RedisServerProcess;

/**
 * One Redis server with an append-only file fsynced before every reply ({@code appendfsync always}), reached by each
 * node through a proxy of its own. Faults: SIGKILL and restart from the AOF, SIGSTOP, a clean restart, its wall
 * clock stepped or drifting (libfaketime, where installed: {@link ClockFaults}); plus the campaign's partitions,
 * delays and resets of a node's link.
 */
final class StandaloneAofTopology implements CampaignTopology {

    private final Optional<FakedClock> clock = FakedClock.create("redis standalone-aof",
            dev.distlock.embedded.RedisServerBinary.path()).map(ClockFaults::prepare);

    private final RedisServerProcess server = start(RedisServerProcess.builder().appendOnly(), clock);

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
    public long fixedLeaseMillis() {
        return ClockFaults.fixedLeaseMillis(clock);
    }

    @Override
    public List<FaultKind> serverFaults() {
        List<FaultKind> faults = new ArrayList<>(List.of(FaultKind.KILL_SERVER, FaultKind.PAUSE_SERVER,
                FaultKind.RESTART_SERVER));
        faults.addAll(ClockFaults.kinds(clock));
        return faults;
    }

    /** Starts the server, under the faked clock when there is one (it is then that clock's in every run). */
    static RedisServerProcess start(RedisServerProcess.Builder builder, Optional<FakedClock> clock) {
        clock.ifPresent(faked -> faked.environment().forEach(builder::environment));
        return builder.start();
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
            case CLOCK_STEP:
            case CLOCK_DRIFT:
                return ClockFaults.inject(kind, clock.orElseThrow(), random, duration);
            default:
                throw new IllegalArgumentException("standalone-aof cannot inject " + kind);
        }
    }

    @Override
    public void heal() {
        clock.ifPresent(FakedClock::stopDrift);
        server.resume();
        server.start();
    }

    @Override
    public String guarantee() {
        return "Mutual exclusion and increasing tokens across crashes and restarts of the server: every lock write "
                + "and the token counter are in the AOF before the reply. Unavailable (fail closed) while the server "
                + "is down or unreachable. Its clock (PX expiry, tokens for a free name) may run up to 0.9 % fast or "
                + "step forward, gaining at most 10 ms in any second: inside the holders' drift margin.";
    }

    @Override
    public void close() {
        links.close();
        server.close();
        clock.ifPresent(FakedClock::close);
    }
}
