package dev.distlock.autoconfigure;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.actuate.DistlockEndpoint;
import dev.distlock.actuate.DistlockHealthIndicator;
import dev.distlock.annotation.DistributedLockInterceptor;
import dev.distlock.annotation.LockOperationSource;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.metrics.MicrometerLockListener;
import dev.distlock.spi.LockStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The beans the central auto-configuration contributes as the optional modules come and go from the class path:
 * {@code distlock-annotation} (and Spring AOP), {@code distlock-micrometer} (and Micrometer), Spring Boot Actuator.
 * Whatever is missing, the application starts and locks; only the feature of the missing module is absent.
 */
class FeatureModulesAutoConfigurationTests {

    /** Every auto-configuration of this module, as the imports file lists them, on an in-memory store. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class,
                    DistlockAnnotationAutoConfiguration.class, DistlockMetricsAutoConfiguration.class,
                    DistlockActuatorAutoConfiguration.class, DistlockProblemDetailsAutoConfiguration.class))
            .withBean(LockStore.class, InMemoryLockStore::new)
            .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
            .withPropertyValues("management.endpoints.web.exposure.include=distlock");

    /** With Spring Boot's endpoint support, as an application with Actuator has it. */
    private ApplicationContextRunner withActuator() {
        return runner.withConfiguration(AutoConfigurations.of(EndpointAutoConfiguration.class));
    }

    @Test
    void everyFeatureWithEveryModule() {
        withActuator().run(context -> {
            assertLocks(context);
            assertThat(context).hasSingleBean(LockOperationSource.class);
            assertThat(context).hasSingleBean(DistributedLockInterceptor.class);
            assertThat(context).hasSingleBean(MicrometerLockListener.class);
            assertThat(context).hasSingleBean(DistlockEndpoint.class);
            assertThat(context).hasSingleBean(DistlockHealthIndicator.class);
        });
    }

    @Test
    void noMetersWithoutDistlockMicrometer() {
        withActuator().withClassLoader(new FilteredClassLoader("dev.distlock.metrics")).run(context -> {
            assertLocks(context);
            assertThat(context).doesNotHaveBean("distlockMeterListener");
            assertThat(context).hasSingleBean(DistributedLockInterceptor.class);
            assertThat(context).hasSingleBean(DistlockEndpoint.class);
        });
    }

    @Test
    void noMetersWithoutMicrometer() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class,
                        DistlockAnnotationAutoConfiguration.class, DistlockMetricsAutoConfiguration.class))
                .withBean(LockStore.class, InMemoryLockStore::new)
                .withClassLoader(new FilteredClassLoader("io.micrometer"))
                .run(context -> {
                    assertLocks(context);
                    assertThat(context).doesNotHaveBean("distlockMeterListener");
                    assertThat(context).hasSingleBean(DistributedLockInterceptor.class);
                });
    }

    @Test
    void noEndpointOrHealthWithoutActuator() {
        runner.withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate",
                "org.springframework.boot.health")).run(context -> {
                    assertLocks(context);
                    assertThat(context).doesNotHaveBean("distlockEndpoint");
                    assertThat(context).doesNotHaveBean("distlockHealthIndicator");
                    assertThat(context).hasSingleBean(MicrometerLockListener.class);
                });
    }

    @Test
    void noAnnotationSupportWithoutDistlockAnnotation() {
        runner.withClassLoader(new FilteredClassLoader("dev.distlock.annotation")).run(context -> {
            assertLocks(context);
            assertThat(context).doesNotHaveBean("distributedLockInterceptor");
            assertThat(context).hasSingleBean(MicrometerLockListener.class);
        });
    }

    private static void assertLocks(AssertableApplicationContext context) {
        assertThat(context).hasNotFailed();
        try (LockHandle handle = context.getBean(LockService.class).lock("orders:1")) {
            assertThat(handle.isHeld()).isTrue();
        }
    }
}
