package dev.distlock.memcached;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.FaultKind;
import dev.distlock.test.support.campaign.Links;

/**
 * One {@code memcached -M} process from the machine's binary ({@link MemcachedTestServer}; without it the campaign
 * on Memcached is skipped with a visible message), reached by every node through a proxy of its own. Server fault:
 * the process frozen (SIGSTOP) and thawed; plus the campaign's partitions, delays and resets of a node's link. No
 * kill or restart: Memcached comes back empty, forgetting the locks it held, which is outside the store's guarantee
 * (MemcachedRestartTests shows what a restart keeps: increasing tokens). Clock faults are the holders': each node's
 * store reads its wall clock from a file of its own ({@link HolderClock}, named in its spec), which
 * {@link HolderClockFaults} steps and drifts.
 */
final class MemcachedTopology implements CampaignTopology {

    private final MemcachedTestServer server = MemcachedTestServer.start();

    private final Links links = Links.toServers(List.of(server), MemcachedTestServer::port);

    /** Every node's clock, by node: made with its first spec. */
    private final Map<String, HolderClock> clocks = new TreeMap<>();

    @Override
    public String name() {
        return "memcached";
    }

    @Override
    public String spec(String node) {
        HolderClock clock;
        synchronized (clocks) {
            clock = clocks.computeIfAbsent(node, n -> HolderClock.create(n, HolderClockFaults.bandMicros()));
        }
        return "memcached|" + links.addresses(node, "") + "|" + clock.file();
    }

    @Override
    public Links links() {
        return links;
    }

    @Override
    public List<FaultKind> serverFaults() {
        return List.of(FaultKind.PAUSE_SERVER, FaultKind.CLOCK_STEP, FaultKind.CLOCK_DRIFT);
    }

    @Override
    public Injected inject(FaultKind kind, Random random, Duration duration) {
        if (kind == FaultKind.CLOCK_STEP || kind == FaultKind.CLOCK_DRIFT) {
            synchronized (clocks) {
                return HolderClockFaults.inject(kind, new ArrayList<>(clocks.values()), random, duration);
            }
        }
        if (kind != FaultKind.PAUSE_SERVER) {
            return null; // the campaign's link faults
        }
        server.pause();
        return new Injected("SIGSTOP memcached", server::resume);
    }

    @Override
    public void heal() {
        server.resume();
        synchronized (clocks) {
            clocks.values().forEach(HolderClock::stopDrift); // the offsets stay, within the band (HolderClockFaults)
        }
    }

    @Override
    public String guarantee() {
        return "Mutual exclusion and increasing tokens while the server keeps its items (evictions off, no restart) "
                + "and the instances' clocks are less than 1 s apart: a lock is an item holding its lease's end by "
                + "the holder's clock (others take it 1 s after by theirs), renewed and released by compare-and-set; "
                + "tokens are at least the instances' clock in µs and above the name's last. Fails closed while the "
                + "server is unreachable. The campaign steps and drifts the holders' clocks, back too, keeping any "
                + "two within 500 ms (-Dcampaign.clock=beyond: up to 3 s).";
    }

    @Override
    public void close() {
        synchronized (clocks) {
            clocks.values().forEach(HolderClock::close);
        }
        links.close();
        server.close();
    }
}
