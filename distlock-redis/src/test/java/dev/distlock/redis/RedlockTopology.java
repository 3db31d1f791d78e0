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
import java.util.stream.IntStream;

import dev.distlock.embedded.RedisServerBinary;
import dev.distlock.embedded.RedisServerProcess;

/**
 * Redlock over five independent masters, each with an AOF fsynced before every reply (a restarted master must not
 * forget a lock it granted: Redlock's own condition for safety), each reached by every node through a proxy of its
 * own. Faults: one or two masters killed (and restarted from the AOF), frozen, or restarted; one master's wall clock
 * stepped or drifting (each master has a clock of its own, libfaketime where installed: {@link ClockFaults}); plus
 * the campaign's partitions, delays and resets between one node and some masters.
 */
final class RedlockTopology implements CampaignTopology {

    private static final int MASTERS = 5;

    /** One clock per master, prepared together (none without libfaketime): a fault moves one of them. */
    private final List<FakedClock> clocks = ClockFaults.prepareEach(RedisServerBinary.path(),
            IntStream.range(0, MASTERS).mapToObj(i -> "redlock master " + i).toList());

    private final List<RedisServerProcess> masters = startMasters(clocks);

    private final Links links = Links.toServers(masters, RedisServerProcess::port);

    /** Five independent masters with their AOF fsynced before every reply, each under its own clock if any. */
    private static List<RedisServerProcess> startMasters(List<FakedClock> clocks) {
        List<RedisServerProcess> started = new ArrayList<>();
        try {
            for (int i = 0; i < MASTERS; i++) {
                Optional<FakedClock> clock = clocks.isEmpty() ? Optional.empty() : Optional.of(clocks.get(i));
                started.add(StandaloneAofTopology.start(RedisServerProcess.builder().appendOnly(), clock));
            }
            return List.copyOf(started);
        }
        catch (RuntimeException ex) {
            started.forEach(RedisServerProcess::kill);
            clocks.forEach(FakedClock::close);
            throw ex;
        }
    }

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
    public long fixedLeaseMillis() {
        return ClockFaults.fixedLeaseMillis(clocks);
    }

    @Override
    public List<FaultKind> serverFaults() {
        List<FaultKind> faults = new ArrayList<>(List.of(FaultKind.KILL_SERVER, FaultKind.PAUSE_SERVER,
                FaultKind.RESTART_SERVER));
        faults.addAll(ClockFaults.kinds(clocks));
        return faults;
    }

    @Override
    public Injected inject(FaultKind kind, Random random, Duration duration) {
        if (kind == FaultKind.CLOCK_STEP || kind == FaultKind.CLOCK_DRIFT) {
            return ClockFaults.injectOne(kind, clocks, random, duration);
        }
        // A minority (one or two of five): the store must go on. Three would be a majority down, which only fails
        // closed; the partitions reach that case for single nodes.
        int count = kind == FaultKind.RESTART_SERVER ? 1 : 1 + random.nextInt(2);
        List<Integer> chosen = new ArrayList<>();
        while (chosen.size() < count) {
            int index = random.nextInt(MASTERS);
            if (!chosen.contains(index)) {
                chosen.add(index);
            }
        }
        String which = "masters " + chosen;
        switch (kind) {
            case KILL_SERVER:
                chosen.forEach(i -> masters.get(i).kill());
                return new Injected("SIGKILL redlock " + which + ", restart from the AOF",
                        () -> chosen.forEach(i -> masters.get(i).start()));
            case PAUSE_SERVER:
                chosen.forEach(i -> masters.get(i).pause());
                return new Injected("SIGSTOP redlock " + which, () -> chosen.forEach(i -> masters.get(i).resume()));
            case RESTART_SERVER:
                chosen.forEach(i -> masters.get(i).stop());
                return new Injected("stop redlock " + which + ", start again",
                        () -> chosen.forEach(i -> masters.get(i).start()));
            default:
                throw new IllegalArgumentException("redlock cannot inject " + kind);
        }
    }

    @Override
    public void heal() {
        clocks.forEach(FakedClock::stopDrift);
        for (RedisServerProcess master : masters) {
            master.resume();
            master.start();
        }
    }

    @Override
    public String guarantee() {
        return "Mutual exclusion and increasing tokens while a majority (3 of 5) of masters is reachable, with "
                + "masters that keep their locks across restarts (AOF fsync always). Fails closed without a "
                + "majority. Safety rests on bounded clock drift and process pauses shorter than the lease: each "
                + "master's clock (PX expiry, its tokens for a free name) may run up to 0.9 % fast or step forward, "
                + "gaining at most 10 ms in any second, inside the holders' drift margin; the masters' clocks drift "
                + "apart by what the faults add up to.";
    }

    @Override
    public void close() {
        links.close();
        masters.forEach(RedisServerProcess::kill);
        clocks.forEach(FakedClock::close);
    }
}
