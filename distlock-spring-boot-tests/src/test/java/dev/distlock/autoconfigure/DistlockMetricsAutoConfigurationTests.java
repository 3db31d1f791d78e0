package dev.distlock.autoconfigure;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.metrics.MicrometerLockListener;
import dev.distlock.metrics.ObservationLockListener;
import dev.distlock.spi.LockStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration;
import org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration;
import org.springframework.boot.micrometer.observation.autoconfigure.ObservationAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * How the metrics listener is wired by Spring Boot: present with a registry and reaching the engine, histograms
 * only on request through {@code management.metrics.distribution.*}, absent (and locking unaffected) without
 * Micrometer or without a registry.
 */
class DistlockMetricsAutoConfigurationTests {

    /** The auto-configured lock service, on an in-memory store: the wiring of the listener is what is tested. */
    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class,
                        DistlockMetricsAutoConfiguration.class))
                .withBean(LockStore.class, InMemoryLockStore::new);
    }

    private ApplicationContextRunner withMetrics() {
        return runner().withConfiguration(AutoConfigurations.of(MetricsAutoConfiguration.class,
                CompositeMeterRegistryAutoConfiguration.class, SimpleMetricsExportAutoConfiguration.class,
                ObservationAutoConfiguration.class));
    }

    @Test
    void engineReportsToTheApplicationsMeterRegistry() {
        withMetrics().run(context -> {
            assertThat(context).hasSingleBean(MicrometerLockListener.class);
            // No tracer on the class path: no span listener.
            assertThat(context).doesNotHaveBean(ObservationLockListener.class);
            LockService locks = context.getBean(LockService.class);
            try (LockHandle handle = locks.lock("orders:1")) {
                MeterRegistry registry = context.getBean(MeterRegistry.class);
                assertThat(registry.get("distlock.held").tag("lock", "orders").longTaskTimer().activeTasks())
                        .isEqualTo(1);
            }
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            Timer acquire = registry.get("distlock.acquire").tags("lock", "orders", "result", "acquired").timer();
            assertThat(acquire.count()).isEqualTo(1);
            assertThat(acquire.takeSnapshot().histogramCounts()).isEmpty();
            assertThat(acquire.takeSnapshot().percentileValues()).isEmpty();
            assertThat(registry.get("distlock.release").tags("lock", "orders", "result", "released").counter()
                    .count()).isEqualTo(1);
        });
    }

    @Test
    void distributionStatisticsOnlyWhenTheUserAsksThroughBootProperties() {
        // Boot's management.metrics.distribution.* meter filter reaches the distlock timers. (The simple registry
        // used here computes percentiles and SLO buckets; percentiles-histogram buckets are published by
        // registries such as Prometheus, through the same filter.)
        withMetrics().withPropertyValues("management.metrics.distribution.percentiles.distlock.acquire=0.99",
                "management.metrics.distribution.slo.distlock.acquire=50ms,1s").run(context -> {
                    context.getBean(LockService.class).lock("orders:2").unlock();
                    Timer acquire = context.getBean(MeterRegistry.class).get("distlock.acquire")
                            .tags("lock", "orders", "result", "acquired").timer();
                    assertThat(acquire.takeSnapshot().percentileValues()).hasSize(1);
                    assertThat(acquire.takeSnapshot().histogramCounts()).hasSize(2);
                });
    }

    @Test
    void noListenerWithoutARegistryAndLockingStillWorks() {
        runner().run(context -> {
            assertThat(context).doesNotHaveBean(MicrometerLockListener.class);
            try (LockHandle handle = context.getBean(LockService.class).lock("orders:3")) {
                assertThat(handle.isHeld()).isTrue();
            }
        });
    }

    @Test
    void lockingWorksWithoutMicrometerOnTheClassPath() {
        runner().withClassLoader(new FilteredClassLoader("io.micrometer.core")).run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).doesNotHaveBean(MicrometerLockListener.class);
            try (LockHandle handle = context.getBean(LockService.class).lock("orders:4")) {
                assertThat(handle.isHeld()).isTrue();
            }
        });
    }

    @Test
    void userListenerBeanWins() {
        withMetrics().withBean("custom", MicrometerLockListener.class,
                () -> new MicrometerLockListener(new io.micrometer.core.instrument.simple.SimpleMeterRegistry()))
                .run(context -> assertThat(context).getBeans(MicrometerLockListener.class).containsOnlyKeys("custom"));
    }
}
