package dev.distlock.autoconfigure;

import dev.distlock.metrics.MicrometerLockListener;
import dev.distlock.metrics.ObservationLockListener;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.observation.ObservationRegistry;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * Metrics and tracing of distlock, as {@link dev.distlock.listener.LockListener} beans that the engine picks up.
 * <ul>
 * <li>{@link MicrometerLockListener} when a {@link MeterRegistry} bean exists: the meters {@code distlock.acquire},
 * {@code distlock.held}, {@code distlock.release}, {@code distlock.lease.lost} and {@code distlock.renewal}.</li>
 * <li>{@link ObservationLockListener} when a tracer (Micrometer Tracing) is on the class path and an
 * {@link ObservationRegistry} bean exists: one span per acquisition and per hold. The meters the observation
 * handler would derive from those observations are denied, since the metrics above already cover them.</li>
 * </ul>
 * Without Micrometer or {@code distlock-micrometer} on the class path, or without a registry, nothing is registered
 * and the engine runs with no listener.
 * Ordered after Spring Boot's metrics and observation auto-configurations (so the registries are known) and
 * before {@link DistlockAutoConfiguration} (so the engine is configured with these listeners).
 */
@AutoConfiguration(before = DistlockAutoConfiguration.class, afterName = {
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration" })
@ConditionalOnClass({ MeterRegistry.class, MicrometerLockListener.class })
public class DistlockMetricsAutoConfiguration {

    /**
     * @param meterRegistry the application's meter registry
     * @return the listener that records the distlock meters
     */
    @Bean
    @ConditionalOnBean(MeterRegistry.class)
    @ConditionalOnMissingBean
    public MicrometerLockListener distlockMeterListener(MeterRegistry meterRegistry) {
        return new MicrometerLockListener(meterRegistry);
    }

    /**
     * Spans for acquisitions and holds, when a tracer is present.
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = { "io.micrometer.observation.ObservationRegistry", "io.micrometer.tracing.Tracer" })
    @ConditionalOnBean(ObservationRegistry.class)
    static class DistlockTracingConfiguration {

        @Bean
        @ConditionalOnMissingBean
        ObservationLockListener distlockObservationListener(ObservationRegistry observationRegistry) {
            return new ObservationLockListener(observationRegistry);
        }

        /**
         * The observations exist for their spans; their timers would duplicate {@code distlock.acquire} and
         * {@code distlock.held} under other names.
         */
        @Bean
        MeterFilter distlockObservationMeterFilter() {
            return MeterFilter.denyNameStartsWith(ObservationLockListener.OBSERVATION_PREFIX);
        }
    }
}
