package dev.distlock.memcached.autoconfigure;

import java.util.List;

import dev.distlock.autoconfigure.DistlockActuatorAutoConfiguration;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.memcached.MemcachedTestServer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.health.actuate.endpoint.HealthEndpoint;
import org.springframework.boot.health.actuate.endpoint.IndicatedHealthDescriptor;
import org.springframework.boot.health.autoconfigure.actuate.endpoint.HealthEndpointAutoConfiguration;
import org.springframework.boot.health.autoconfigure.registry.HealthContributorRegistryAutoConfiguration;
import org.springframework.boot.health.contributor.Status;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The actuator's {@code distlock} health contributor of a Memcached application, read through the health endpoint
 * as {@code /actuator/health/distlock} answers it: UP with a real Memcached, DOWN when nothing answers.
 */
class DistlockMemcachedHealthTests {

    static MemcachedTestServer memcached;

    /** A Memcached application with Actuator's health endpoint. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockMemcachedAutoConfiguration.class,
                    DistlockAutoConfiguration.class, DistlockActuatorAutoConfiguration.class,
                    EndpointAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class,
                    HealthEndpointAutoConfiguration.class))
            .withPropertyValues("management.endpoint.health.show-details=always", "distlock.command-timeout=5s");

    @BeforeAll
    static void start() {
        memcached = MemcachedTestServer.start();
    }

    @AfterAll
    static void stop() {
        if (memcached != null) { // null when the binary is missing and the tests were skipped
            memcached.close();
        }
    }

    @Test
    void distlockHealthIsUpWithMemcachedUp() {
        runner.withPropertyValues("distlock.memcached.servers=" + memcached.address()).run(context -> {
            IndicatedHealthDescriptor health = distlockHealth(context.getBean(HealthEndpoint.class));
            assertThat(health.getStatus()).isEqualTo(Status.UP);
            assertThat(health.getDetails()).containsEntry("store", "UP")
                    .containsEntry("servers", List.of(memcached.address()));
        });
    }

    @Test
    void distlockHealthIsDownWhenMemcachedDoesNotAnswer() {
        runner.withPropertyValues("distlock.memcached.servers=127.0.0.1:1", "distlock.command-timeout=500ms")
                .run(context -> {
                    IndicatedHealthDescriptor health = distlockHealth(context.getBean(HealthEndpoint.class));
                    assertThat(health.getStatus()).isEqualTo(Status.DOWN);
                    assertThat(health.getDetails()).containsEntry("store", "DOWN");
                });
    }

    static IndicatedHealthDescriptor distlockHealth(HealthEndpoint endpoint) {
        return (IndicatedHealthDescriptor) endpoint.healthForPath("distlock");
    }
}
