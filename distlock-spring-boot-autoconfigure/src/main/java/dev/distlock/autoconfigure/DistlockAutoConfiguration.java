package dev.distlock.autoconfigure;

import java.time.Duration;

import dev.distlock.LockService;
import dev.distlock.core.LockDefaults;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.LockStore;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.core.env.Environment;

/**
 * The {@link LockService}: the store-neutral engine on the application's {@link LockStore} (auto-configured by
 * the store module's own auto-configuration, which orders itself before this one, or defined by the application),
 * with every {@link LockListener} bean (metrics, tracing), and the leadership campaigns of
 * {@code distlock.leader.groups}. Off with {@code distlock.enabled=false}; replaced by any {@link LockService} bean of
 * the application's own.
 */
@AutoConfiguration
@ConditionalOnBooleanProperty(name = "distlock.enabled", matchIfMissing = true)
@EnableConfigurationProperties(DistlockProperties.class)
public class DistlockAutoConfiguration {

    /** Spring Boot's default of {@code spring.lifecycle.timeout-per-shutdown-phase}. */
    private static final Duration DEFAULT_PHASE_TIMEOUT = Duration.ofSeconds(30);

    /**
     * @param store the lock store
     * @param properties the {@code distlock.*} settings
     * @param listeners the event listeners
     * @param environment where {@code spring.application.name} is read, for the default {@code distlock.instance-id}
     * @return the started lock service; closed (locks released, watchdog stopped) with the context
     */
    @Bean(initMethod = "start")
    @ConditionalOnMissingBean(LockService.class)
    @ConditionalOnSingleCandidate(LockStore.class)
    public StoreLockService lockService(LockStore store, DistlockProperties properties,
            ObjectProvider<LockListener> listeners, Environment environment) {
        String instanceId = LockDefaults.instanceId(environment.getProperty("spring.application.name"));
        return new StoreLockService(store, properties.toLockConfig(instanceId),
                CompositeLockListener.of(listeners.orderedStream().toList()));
    }

    /**
     * @param lockService the lock service
     * @param properties where {@code distlock.leader.groups} is read
     * @param events where the leadership events go
     * @return the campaigns for {@code distlock.leader.groups} (none when it is empty), started with the context
     */
    @Bean
    @ConditionalOnSingleCandidate(LockService.class)
    LeadershipCampaigns distlockLeadershipCampaigns(LockService lockService, DistlockProperties properties,
            ApplicationEventPublisher events) {
        return new LeadershipCampaigns(lockService, properties.leader().groups(), events);
    }

    /**
     * Lets locked work finish before the lock service releases what is held at shutdown.
     *
     * @param lockService the lock service
     * @param environment where {@code spring.lifecycle.timeout-per-shutdown-phase} is read
     * @return the lifecycle
     */
    @Bean
    @ConditionalOnSingleCandidate(StoreLockService.class)
    DistlockLifecycle distlockLifecycle(StoreLockService lockService, Environment environment) {
        Duration phaseTimeout = Binder.get(environment).bind("spring.lifecycle.timeout-per-shutdown-phase",
                Duration.class).orElse(DEFAULT_PHASE_TIMEOUT);
        return new DistlockLifecycle(lockService, phaseTimeout);
    }
}
