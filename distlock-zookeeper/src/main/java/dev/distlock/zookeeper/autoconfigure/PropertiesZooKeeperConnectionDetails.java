package dev.distlock.zookeeper.autoconfigure;

/**
 * {@link ZooKeeperConnectionDetails} from {@code distlock.zookeeper.connect-string}: the default, when the
 * application declares none of its own.
 */
final class PropertiesZooKeeperConnectionDetails implements ZooKeeperConnectionDetails {

    private final ZooKeeperLockStoreProperties properties;

    PropertiesZooKeeperConnectionDetails(ZooKeeperLockStoreProperties properties) {
        this.properties = properties;
    }

    @Override
    public String getConnectString() {
        return this.properties.connectString();
    }
}
