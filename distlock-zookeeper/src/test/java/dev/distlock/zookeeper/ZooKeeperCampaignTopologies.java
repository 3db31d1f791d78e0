package dev.distlock.zookeeper;

import java.time.Duration;
import java.util.List;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.SingleTopologyProvider;

/**
 * The ZooKeeper store's fault campaign topology {@code zookeeper} (an ensemble). Node spec:
 * {@code zookeeper|connectString|basePath}; a 4 s session and the campaign's 1 s command timeout.
 */
public final class ZooKeeperCampaignTopologies extends SingleTopologyProvider {

    /** The ensemble, for {@link java.util.ServiceLoader}. */
    public ZooKeeperCampaignTopologies() {
        super("zookeeper", "zookeeper", ZooKeeperEnsembleTopology::new);
    }

    @Override
    protected CampaignTopology.Opened open(String[] fields) {
        return new CampaignTopology.Opened(ZooKeeperLockStore.connect(ZooKeeperLockConfig.defaults()
                .withConnectString(fields[1]).withBasePath(fields[2]).withSessionTimeout(Duration.ofSeconds(4))
                .withCommandTimeout(CampaignTopology.COMMAND_TIMEOUT)), List.of());
    }
}
