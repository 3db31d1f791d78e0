package dev.distlock.memcached;

import java.time.Duration;
import java.util.List;
import java.util.Random;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.FaultKind;
import dev.distlock.test.support.campaign.Links;

/**
 * One {@code memcached -M} process from the machine's binary ({@link MemcachedTestServer}; without it the campaign
 * on Memcached is skipped with a visible message), reached by every node through a proxy of its own. Server fault:
 * the process frozen (SIGSTOP) and thawed; plus the campaign's partitions, delays and resets of a node's link. No
 * kill or restart: Memcached comes back empty, forgetting the locks it held, which is outside the store's guarantee
 * (MemcachedRestartTests shows what a restart keeps: increasing tokens).
 */
final class MemcachedTopology implements CampaignTopology {

    private final MemcachedTestServer server = MemcachedTestServer.start();

    private final Links links = Links.toServers(List.of(server), MemcachedTestServer::port);

    @Override
    public String name() {
        return "memcached";
    }

    @Override
    public String spec(String node) {
        return "memcached|" + links.addresses(node, "");
    }

    @Override
    public Links links() {
        return links;
    }

    @Override
    public List<FaultKind> serverFaults() {
        return List.of(FaultKind.PAUSE_SERVER);
    }

    @Override
    public Injected inject(FaultKind kind, Random random, Duration duration) {
        if (kind != FaultKind.PAUSE_SERVER) {
            return null; // the campaign's link faults
        }
        server.pause();
        return new Injected("SIGSTOP memcached", server::resume);
    }

    @Override
    public void heal() {
        server.resume();
    }

    @Override
    public String guarantee() {
        return "Mutual exclusion and increasing tokens while the server keeps its items (evictions off, no restart): "
                + "a lock is an item holding its lease's end by the holder's clock (others take it 1 s after), "
                + "renewed and released by compare-and-set; tokens are at least the instances' clock in µs and above the name's "
                + "last. Fails closed while the server is unreachable.";
    }

    @Override
    public void close() {
        links.close();
        server.close();
    }
}
