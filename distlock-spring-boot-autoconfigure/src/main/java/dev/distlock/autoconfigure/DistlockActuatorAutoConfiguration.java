package dev.distlock.autoconfigure;

import java.time.Duration;

import dev.distlock.actuate.DistlockEndpoint;
import dev.distlock.actuate.DistlockEndpointWebExtension;
import dev.distlock.actuate.DistlockHealthIndicator;
import dev.distlock.core.HeldLockRegistry;
import dev.distlock.core.LockAdministration;
import dev.distlock.core.LockDefaults;

import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnSingleCandidate;
import org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator;
import org.springframework.context.ApplicationEventPublisher;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Actuator support of distlock, only when Spring Boot Actuator is on the class path and the engine (a
 * {@link HeldLockRegistry}) is configured:
 * <ul>
 * <li>the {@code distlock} endpoint ({@link DistlockEndpoint}) when it is available (enabled and exposed), with its
 * force release operation ({@link DistlockEndpointWebExtension}), which needs both
 * {@code distlock.admin.force-release=true} and {@code management.endpoint.distlock.access=unrestricted} (the
 * endpoint's default access is read-only), and an authenticated principal when Spring Security is present;</li>
 * <li>the {@code distlock} health contributor ({@link DistlockHealthIndicator}) unless
 * {@code management.health.distlock.enabled=false}; its PING is bounded by {@code distlock.command-timeout}.</li>
 * </ul>
 */
@AutoConfiguration(after = DistlockAutoConfiguration.class)
public class DistlockActuatorAutoConfiguration {

    /**
     * The endpoint listing held locks. The class check guards the nested configuration, whose conditions need
     * Actuator classes to be evaluated at all.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = { "org.springframework.boot.actuate.endpoint.annotation.Endpoint",
            "org.springframework.boot.actuate.autoconfigure.endpoint.condition.ConditionalOnAvailableEndpoint" })
    static class DistlockEndpointConfiguration {

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnAvailableEndpoint(DistlockEndpoint.class)
        @ConditionalOnSingleCandidate(HeldLockRegistry.class)
        static class Available {

            @Bean
            @ConditionalOnMissingBean
            DistlockEndpoint distlockEndpoint(HeldLockRegistry heldLockRegistry) {
                return new DistlockEndpoint(heldLockRegistry);
            }

            /** Always there, so that a disabled force release answers 403 rather than an unknown path's 404. */
            @Bean
            @ConditionalOnMissingBean
            @ConditionalOnSingleCandidate(LockAdministration.class)
            DistlockEndpointWebExtension distlockEndpointWebExtension(LockAdministration lockAdministration,
                    ObjectProvider<DistlockProperties> properties, ApplicationEventPublisher events) {
                boolean forceRelease = properties.stream().findFirst().map(bound -> bound.admin().forceRelease())
                        .orElse(false);
                return new DistlockEndpointWebExtension(lockAdministration, forceRelease, events);
            }
        }
    }

    /**
     * The health contributor; same guard as the endpoint.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = { "org.springframework.boot.health.contributor.HealthIndicator",
            "org.springframework.boot.health.autoconfigure.contributor.ConditionalOnEnabledHealthIndicator" })
    static class DistlockHealthConfiguration {

        /** Used when {@code distlock.*} is not bound (the engine was configured by hand). */
        private static final Duration DEFAULT_TIMEOUT = LockDefaults.COMMAND_TIMEOUT;

        @Configuration(proxyBeanMethods = false)
        @ConditionalOnEnabledHealthIndicator("distlock")
        @ConditionalOnSingleCandidate(HeldLockRegistry.class)
        static class Enabled {

            @Bean
            @ConditionalOnMissingBean(name = "distlockHealthIndicator")
            DistlockHealthIndicator distlockHealthIndicator(HeldLockRegistry heldLockRegistry,
                    ObjectProvider<DistlockProperties> properties) {
                Duration timeout = properties.stream().findFirst().map(DistlockProperties::commandTimeout)
                        .orElse(DEFAULT_TIMEOUT);
                return new DistlockHealthIndicator(heldLockRegistry, timeout);
            }
        }
    }
}
