package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import dev.distlock.test.support.campaign.CampaignTopology;

/**
 * The ZooKeeper store's fault campaign topology {@code zookeeper} (an ensemble). Node spec:
 * {@code zookeeper|connectString|basePath}; a 4 s session and the campaign's 1 s command timeout.
 */
public final class ZooKeeperCampaignTopologies implements CampaignTopology.Provider {

    @Override
    public List<String> names() {
        return List.of("zookeeper");
    }

    @Override
    public CampaignTopology start(String name) {
        return new ZooKeeperEnsembleTopology();
    }

    @Override
    public Optional<CampaignTopology.Opened> open(String spec) {
        String[] parts = spec.split("\\|");
        if (!"zookeeper".equals(parts[0])) {
            return Optional.empty();
        }
        return Optional.of(new CampaignTopology.Opened(ZooKeeperLockStore.connect(ZooKeeperLockConfig.defaults()
                .withConnectString(parts[1]).withBasePath(parts[2]).withSessionTimeout(Duration.ofSeconds(4))
                .withCommandTimeout(CampaignTopology.COMMAND_TIMEOUT)), List.of()));
    }
}
