package dev.distlock.etcd.autoconfigure;

import dev.distlock.autoconfigure.DistlockActuatorAutoConfiguration;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.etcd.EtcdTestCluster;
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
 * The actuator's {@code distlock} health contributor of an etcd application, read through the health endpoint as
 * {@code /actuator/health/distlock} answers it: UP with a real etcd server, DOWN when nothing answers.
 */
class DistlockEtcdHealthTests {

    static EtcdTestCluster etcd;

    /** An etcd application with Actuator's health endpoint. */
    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DistlockEtcdAutoConfiguration.class,
                    DistlockAutoConfiguration.class, DistlockActuatorAutoConfiguration.class,
                    EndpointAutoConfiguration.class, HealthContributorRegistryAutoConfiguration.class,
                    HealthEndpointAutoConfiguration.class))
            // A new client's first call connects (and, first in the JVM, loads gRPC): room for a busy machine.
            .withPropertyValues("management.endpoint.health.show-details=always", "distlock.command-timeout=5s");

    @BeforeAll
    static void startEtcd() {
        etcd = EtcdTestCluster.shared();
    }

    @Test
    void distlockHealthIsUpWithEtcdUp() {
        runner.withPropertyValues("distlock.etcd.endpoints=" + String.join(",", etcd.endpoints()),
                "distlock.key-prefix=health").run(context -> {
                    IndicatedHealthDescriptor health = distlockHealth(context.getBean(HealthEndpoint.class));
                    assertThat(health.getStatus()).isEqualTo(Status.UP);
                    assertThat(health.getDetails()).containsEntry("store", "UP").containsEntry("etcd", "UP")
                            .containsEntry("endpoints", etcd.endpoints()).containsEntry("keyPrefix", "health");
                });
    }

    @Test
    void distlockHealthIsDownWhenEtcdDoesNotAnswer() {
        runner.withPropertyValues("distlock.etcd.endpoints=http://127.0.0.1:1", "distlock.command-timeout=500ms")
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
