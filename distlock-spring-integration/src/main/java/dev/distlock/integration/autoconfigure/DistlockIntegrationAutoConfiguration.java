package dev.distlock.integration.autoconfigure;

import dev.distlock.LockService;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.integration.DistlockLockRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.integration.support.locks.LockRegistry;

/**
 * A {@link DistlockLockRegistry} on the application's {@link LockService}, when Spring Integration is on the class
 * path and the application has no {@link LockRegistry} of its own (one of its own wins, so an application that
 * wants Spring Integration's registries for some components keeps them).
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
@ConditionalOnClass({ LockRegistry.class, DistlockLockRegistry.class })
@ConditionalOnBean(LockService.class)
public final class DistlockIntegrationAutoConfiguration {

    /**
     * @param locks the lock service
     * @return the registry, with the {@code distlock.*} defaults
     */
    @Bean
    @ConditionalOnMissingBean(LockRegistry.class)
    DistlockLockRegistry distlockLockRegistry(LockService locks) {
        return new DistlockLockRegistry(locks);
    }
}
