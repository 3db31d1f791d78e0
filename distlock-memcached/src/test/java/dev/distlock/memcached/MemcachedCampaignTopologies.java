package dev.distlock.memcached;

import java.nio.file.Path;
import java.time.Clock;
import java.util.List;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.SingleTopologyProvider;

/**
 * The Memcached store's fault campaign topology {@code memcached} (one server). Node spec:
 * {@code memcached|host:port|clock-file}: the store on the node's wall clock, read from that file
 * ({@link OffsetFileClock}; the system's without it); the campaign's key prefix and 1 s command timeout.
 */
public final class MemcachedCampaignTopologies extends SingleTopologyProvider {

    /** The server, for {@link java.util.ServiceLoader}. */
    public MemcachedCampaignTopologies() {
        super("memcached", "memcached", MemcachedTopology::new);
    }

    @Override
    protected CampaignTopology.Opened open(String[] fields) {
        MemcachedLockConfig config = new MemcachedLockConfig(List.of(fields[1]), CampaignTopology.KEY_PREFIX,
                CampaignTopology.COMMAND_TIMEOUT, false);
        if (fields.length < 3) {
            return new CampaignTopology.Opened(MemcachedLockStore.connect(config, Clock.systemUTC()), List.of());
        }
        OffsetFileClock clock = OffsetFileClock.watch(Path.of(fields[2]));
        return new CampaignTopology.Opened(MemcachedLockStore.connect(config, clock), List.of(clock));
    }
}
