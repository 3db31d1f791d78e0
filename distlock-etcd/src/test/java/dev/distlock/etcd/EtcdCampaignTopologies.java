package dev.distlock.etcd;

import java.util.List;
import java.util.Optional;

import dev.distlock.test.support.campaign.CampaignTopology;

/**
 * The etcd store's fault campaign topology {@code etcd} (three members). Node spec:
 * {@code etcd|http://host:port,http://host:port}; the campaign's key prefix and 1 s command timeout.
 */
public final class EtcdCampaignTopologies implements CampaignTopology.Provider {

    @Override
    public List<String> names() {
        return List.of("etcd");
    }

    @Override
    public CampaignTopology start(String name) {
        return new EtcdTopology();
    }

    @Override
    public Optional<CampaignTopology.Opened> open(String spec) {
        String[] parts = spec.split("\\|");
        if (!"etcd".equals(parts[0])) {
            return Optional.empty();
        }
        return Optional.of(new CampaignTopology.Opened(EtcdLockStore.connect(EtcdLockConfig.defaults()
                .withEndpoints(List.of(parts[1].split(","))).withKeyPrefix(CampaignTopology.KEY_PREFIX)
                .withCommandTimeout(CampaignTopology.COMMAND_TIMEOUT)), List.of()));
    }
}
