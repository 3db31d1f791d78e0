package dev.distlock.zookeeper.autoconfigure;

import org.springframework.boot.autoconfigure.service.connection.ConnectionDetails;

/**
 * Where the ZooKeeper lock store connects when it makes its own Curator client (the application has no
 * {@code CuratorFramework} bean). Spring Boot's {@link ConnectionDetails} pattern: by default the details come from
 * {@code distlock.zookeeper.connect-string}; a bean of this type, declared by the application or registered by a
 * test's service connection, takes the place of the property.
 */
public interface ZooKeeperConnectionDetails extends ConnectionDetails {

    /**
     * @return the ensemble, {@code host:port[,host:port...]}, optionally followed by a chroot path
     */
    String getConnectString();
}
