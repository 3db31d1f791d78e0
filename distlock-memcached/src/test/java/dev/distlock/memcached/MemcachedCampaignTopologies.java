package dev.distlock.memcached;

import java.util.List;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.SingleTopologyProvider;

/**
 * The Memcached store's fault campaign topology {@code memcached} (one server). Node spec:
 * {@code memcached|host:port}; the campaign's key prefix and 1 s command timeout.
 */
public final class MemcachedCampaignTopologies extends SingleTopologyProvider {

    /** The server, for {@link java.util.ServiceLoader}. */
    public MemcachedCampaignTopologies() {
        super("memcached", "memcached", MemcachedTopology::new);
    }

    @Override
    protected CampaignTopology.Opened open(String[] fields) {
        return new CampaignTopology.Opened(MemcachedLockStore.connect(new MemcachedLockConfig(List.of(fields[1]),
                CampaignTopology.KEY_PREFIX, CampaignTopology.COMMAND_TIMEOUT, false)), List.of());
    }
}
