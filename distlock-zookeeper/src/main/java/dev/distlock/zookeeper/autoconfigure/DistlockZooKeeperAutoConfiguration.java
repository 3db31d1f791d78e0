package dev.distlock.zookeeper.autoconfigure;

import dev.distlock.autoconfigure.ConditionalOnLockStore;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockProperties;
import dev.distlock.spi.LockStore;
import dev.distlock.zookeeper.ZooKeeperLockConfig;
import dev.distlock.zookeeper.ZooKeeperLockStore;
import org.apache.curator.framework.CuratorFramework;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The ZooKeeper lock store on Apache Curator: on the application's own {@link CuratorFramework} bean when it has
 * one (its connection, session and ACL settings then apply to locks), else on a client of the store's own, made from
 * {@code distlock.zookeeper.*} and closed with the context. That client connects where the
 * {@link ZooKeeperConnectionDetails} bean says: the application's, or by default one made from
 * {@code distlock.zookeeper.connect-string}. Chosen when Curator is the only lock store client on
 * the class path, or by {@code distlock.store=zookeeper}.
 */
@AutoConfiguration(afterName = "org.springframework.cloud.zookeeper.ZookeeperAutoConfiguration",
        before = DistlockAutoConfiguration.class)
@ConditionalOnClass({ ZooKeeperLockStore.class, CuratorFramework.class })
@ConditionalOnLockStore(ZooKeeperLockStoreRegistration.ID)
@EnableConfigurationProperties({ DistlockProperties.class, ZooKeeperLockStoreProperties.class })
public final class DistlockZooKeeperAutoConfiguration {

    /**
     * @param zookeeper the {@code distlock.zookeeper.*} settings
     * @return the connection details from {@code distlock.zookeeper.connect-string}
     */
    @Bean
    @ConditionalOnMissingBean(ZooKeeperConnectionDetails.class)
    PropertiesZooKeeperConnectionDetails distlockZooKeeperConnectionDetails(ZooKeeperLockStoreProperties zookeeper) {
        return new PropertiesZooKeeperConnectionDetails(zookeeper);
    }

    /**
     * @param curator the application's Curator client, if it has exactly one
     * @param connectionDetails where the store's own client connects (when the application has no client)
     * @param properties the {@code distlock.*} settings
     * @param zookeeper the {@code distlock.zookeeper.*} settings
     * @return the store; its own client (if any) is closed when the store is
     */
    @Bean
    @ConditionalOnMissingBean(LockStore.class)
    ZooKeeperLockStore distlockZooKeeperLockStore(ObjectProvider<CuratorFramework> curator,
            ZooKeeperConnectionDetails connectionDetails, DistlockProperties properties,
            ZooKeeperLockStoreProperties zookeeper) {
        ZooKeeperLockConfig config = new ZooKeeperLockConfig(connectionDetails.getConnectString(),
                zookeeper.basePath(), zookeeper.sessionTimeout(), properties.commandTimeout());
        CuratorFramework client = curator.getIfUnique();
        return client != null ? new ZooKeeperLockStore(client, config) : ZooKeeperLockStore.connect(config);
    }
}
