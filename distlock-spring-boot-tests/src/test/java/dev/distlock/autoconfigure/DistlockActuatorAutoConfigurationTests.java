package dev.distlock.autoconfigure;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.actuate.DistlockEndpoint;
import dev.distlock.actuate.DistlockHealthIndicator;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.LockStore;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * When the endpoint and the health contributor are registered: only with Actuator present, the endpoint only
 * when exposed, the health contributor unless disabled, and never when locking is off.
 */
class DistlockActuatorAutoConfigurationTests {

    /** The auto-configured lock service, on an in-memory store: which beans are registered is what is tested. */
    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class,
                        DistlockActuatorAutoConfiguration.class, EndpointAutoConfiguration.class))
                .withBean(LockStore.class, InMemoryLockStore::new);
    }

    @Test
    void endpointWhenExposedAndHealthByDefault() {
        runner().withPropertyValues("management.endpoints.web.exposure.include=distlock").run(context -> {
            assertThat(context).hasSingleBean(DistlockEndpoint.class);
            assertThat(context).hasBean("distlockHealthIndicator");
            try (LockHandle handle = context.getBean(LockService.class).lock("orders:1")) {
                assertThat(context.getBean(DistlockEndpoint.class).locks().counts().held()).isEqualTo(1);
            }
        });
    }

    @Test
    void noEndpointWhenNotExposed() {
        runner().run(context -> {
            assertThat(context).doesNotHaveBean(DistlockEndpoint.class);
            assertThat(context).hasSingleBean(DistlockHealthIndicator.class);
        });
    }

    @Test
    void healthContributorCanBeDisabled() {
        runner().withPropertyValues("management.health.distlock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(DistlockHealthIndicator.class));
    }

    @Test
    void nothingWhenLockingIsDisabled() {
        runner().withPropertyValues("distlock.enabled=false", "management.endpoints.web.exposure.include=distlock")
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(DistlockEndpoint.class);
                    assertThat(context).doesNotHaveBean(DistlockHealthIndicator.class);
                });
    }

    @Test
    void lockingWorksWithoutActuatorOnTheClassPath() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistlockAutoConfiguration.class,
                        DistlockActuatorAutoConfiguration.class))
                .withBean(LockStore.class, InMemoryLockStore::new)
                .withClassLoader(new FilteredClassLoader("org.springframework.boot.actuate",
                        "org.springframework.boot.health"))
                .run(context -> {
                    assertThat(context).hasNotFailed();
                    assertThat(context).doesNotHaveBean(DistlockHealthIndicator.class);
                    try (LockHandle handle = context.getBean(LockService.class).lock("orders:2")) {
                        assertThat(handle.isHeld()).isTrue();
                    }
                });
    }
}
