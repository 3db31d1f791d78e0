package dev.distlock.zookeeper.autoconfigure;

import java.time.Duration;

import dev.distlock.zookeeper.ZooKeeperLockConfig;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * The ZooKeeper store ({@code distlock.zookeeper.*}). Validated by {@link ZooKeeperLockConfig} when the store is
 * made, with messages naming the property.
 *
 * @param connectString The ZooKeeper ensemble, host:port[,host:port...].
 * @param basePath Parent node of every lock node.
 * @param sessionTimeout The ZooKeeper session timeout: a holder whose session ends loses its locks.
 */
@ConfigurationProperties("distlock.zookeeper")
public record ZooKeeperLockStoreProperties(
        @DefaultValue(ZooKeeperLockConfig.DEFAULT_CONNECT_STRING) String connectString,
        @DefaultValue(ZooKeeperLockConfig.DEFAULT_BASE_PATH) String basePath,
        @DefaultValue(ZooKeeperLockConfig.DEFAULT_SESSION_TIMEOUT) Duration sessionTimeout) {
}
