package dev.distlock.etcd.autoconfigure;

import dev.distlock.autoconfigure.ConditionalOnLockStore;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockProperties;
import dev.distlock.etcd.EtcdLockConfig;
import dev.distlock.etcd.EtcdLockStore;
import dev.distlock.spi.LockStore;
import io.etcd.jetcd.Client;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The etcd lock store on jetcd: on the application's own {@link Client} bean when it has exactly one (its endpoints,
 * credentials and TLS settings then apply to locks, and the application closes it), else on a client of the
 * store's own, closed with the context. That client connects where the {@link EtcdConnectionDetails} bean says: the
 * application's, or by default one made from {@code distlock.etcd.endpoints}, {@code distlock.etcd.username} and
 * {@code distlock.etcd.password}. Keys live under {@code distlock.key-prefix} and {@code /}; every etcd call of the
 * lock path is bounded by {@code distlock.command-timeout}. Chosen when jetcd is the only lock store client on the
 * class path, or by {@code distlock.store=etcd}.
 * <p>
 * No {@code afterName}: Spring Boot has no jetcd auto-configuration to wait for.
 */
@AutoConfiguration(before = DistlockAutoConfiguration.class)
@ConditionalOnClass({ EtcdLockStore.class, Client.class })
@ConditionalOnLockStore(EtcdLockStoreRegistration.ID)
@EnableConfigurationProperties({ DistlockProperties.class, EtcdLockStoreProperties.class })
public final class DistlockEtcdAutoConfiguration {

    /**
     * @param etcd the {@code distlock.etcd.*} settings
     * @return the connection details from {@code distlock.etcd.*}
     */
    @Bean
    @ConditionalOnMissingBean(EtcdConnectionDetails.class)
    PropertiesEtcdConnectionDetails distlockEtcdConnectionDetails(EtcdLockStoreProperties etcd) {
        return new PropertiesEtcdConnectionDetails(etcd);
    }

    /**
     * @param client the application's jetcd client, if it has exactly one
     * @param connectionDetails where the store's own client connects (when the application has no client)
     * @param properties the {@code distlock.*} settings
     * @return the store; its own client (if any) is closed when the store is
     */
    @Bean
    @ConditionalOnMissingBean(LockStore.class)
    EtcdLockStore distlockEtcdLockStore(ObjectProvider<Client> client, EtcdConnectionDetails connectionDetails,
            DistlockProperties properties) {
        // Validated even when the application's client is used, so a bad value fails start-up wherever it is.
        EtcdLockConfig config = new EtcdLockConfig(connectionDetails.getEndpoints(), connectionDetails.getUsername(),
                connectionDetails.getPassword(), properties.keyPrefix(), properties.commandTimeout());
        Client application = client.getIfUnique();
        return application != null ? new EtcdLockStore(application, config) : EtcdLockStore.connect(config);
    }
}
