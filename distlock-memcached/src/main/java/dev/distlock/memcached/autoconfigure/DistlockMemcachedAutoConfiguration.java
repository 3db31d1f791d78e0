package dev.distlock.memcached.autoconfigure;

import com.spotify.folsom.MemcacheClient;
import dev.distlock.autoconfigure.ConditionalOnLockStore;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockProperties;
import dev.distlock.memcached.MemcachedLockConfig;
import dev.distlock.memcached.MemcachedLockStore;
import dev.distlock.spi.LockStore;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;

/**
 * The Memcached lock store on a Folsom client of its own (closed with the context), connected where the
 * {@link MemcachedConnectionDetails} say; chosen when Folsom is the only store client on the class path, or by
 * {@code distlock.store=memcached}.
 */
@AutoConfiguration(before = DistlockAutoConfiguration.class)
@ConditionalOnClass({ MemcachedLockStore.class, MemcacheClient.class })
@ConditionalOnLockStore(MemcachedLockStoreRegistration.ID)
@EnableConfigurationProperties({ DistlockProperties.class, MemcachedLockStoreProperties.class })
public final class DistlockMemcachedAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean(MemcachedConnectionDetails.class)
    MemcachedConnectionDetails distlockMemcachedConnectionDetails(MemcachedLockStoreProperties memcached) {
        return memcached::servers;
    }

    @Bean
    @ConditionalOnMissingBean(LockStore.class)
    MemcachedLockStore distlockMemcachedLockStore(MemcachedConnectionDetails connectionDetails,
            MemcachedLockStoreProperties memcached, DistlockProperties properties) {
        return MemcachedLockStore.connect(new MemcachedLockConfig(connectionDetails.getServers(),
                properties.keyPrefix(), properties.commandTimeout(), memcached.allowEvictions()));
    }
}
