package dev.distlock.etcd;

import java.util.List;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.SingleTopologyProvider;

/**
 * The etcd store's fault campaign topology {@code etcd} (three members). Node spec:
 * {@code etcd|http://host:port,http://host:port}; the campaign's key prefix and 1 s command timeout.
 */
public final class EtcdCampaignTopologies extends SingleTopologyProvider {

    /** The three members, for {@link java.util.ServiceLoader}. */
    public EtcdCampaignTopologies() {
        super("etcd", "etcd", EtcdTopology::new);
    }

    @Override
    protected CampaignTopology.Opened open(String[] fields) {
        return new CampaignTopology.Opened(EtcdLockStore.connect(EtcdLockConfig.defaults()
                .withEndpoints(List.of(fields[1].split(","))).withKeyPrefix(CampaignTopology.KEY_PREFIX)
                .withCommandTimeout(CampaignTopology.COMMAND_TIMEOUT)), List.of());
    }
}
