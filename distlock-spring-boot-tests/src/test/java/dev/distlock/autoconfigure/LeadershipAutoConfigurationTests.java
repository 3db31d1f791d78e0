package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.actuate.DistlockEndpoint;
import dev.distlock.leader.LeadershipGrantedEvent;
import dev.distlock.leader.LeadershipRevokedEvent;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.metrics.MicrometerLockListener;
import dev.distlock.spi.LockStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.event.EventListener;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@code distlock.leader.groups}: the application campaigns at start-up, publishes the leadership events, shows the
 * groups it leads in the endpoint ({@code leaderOf}) and the {@code distlock.leader} gauge, and leaves the election
 * when it stops, so another instance (here a second context on the same store) leads next.
 */
class LeadershipAutoConfigurationTests {

    private ApplicationContextRunner runner(InMemoryLockStore shared) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistlockMetricsAutoConfiguration.class,
                        DistlockAutoConfiguration.class, DistlockActuatorAutoConfiguration.class,
                        EndpointAutoConfiguration.class))
                .withPropertyValues("distlock.leader.groups=orders,reports",
                        "management.endpoints.web.exposure.include=distlock")
                .withBean(LockStore.class, () -> shared)
                .withBean(MeterRegistry.class, SimpleMeterRegistry::new)
                .withBean(LeadershipEvents.class);
    }

    @Test
    void campaignsAtStartUpAndTheNextInstanceLeadsWhenTheLeaderStops() {
        InMemoryLockStore shared = new InMemoryLockStore();
        runner(shared).run(second -> {
            LeadershipEvents secondEvents = second.getBean(LeadershipEvents.class);
            await().atMost(Duration.ofSeconds(10)).until(() -> secondEvents.granted().size() == 2);
            runner(shared).run(first -> {
                LeadershipEvents firstEvents = first.getBean(LeadershipEvents.class);
                assertThat(second.getBean(DistlockEndpoint.class).locks().leaderOf())
                        .containsExactly("orders", "reports");
                assertThat(first.getBean(DistlockEndpoint.class).locks().leaderOf()).isEmpty();
                MeterRegistry meters = second.getBean(MeterRegistry.class);
                assertThat(meters.get(MicrometerLockListener.LEADER).tag("group", "orders").gauge().value())
                        .isEqualTo(1);
                assertThat(first.getBean(MeterRegistry.class).get(MicrometerLockListener.LEADER)
                        .tag("group", "orders").gauge().value()).as("campaigning, not leading").isZero();
                second.close();
                assertThat(secondEvents.revoked()).containsExactlyInAnyOrder("orders", "reports");
                await().atMost(Duration.ofSeconds(20)).until(() -> firstEvents.granted().size() == 2);
                assertThat(firstEvents.granted()).containsExactlyInAnyOrder("orders", "reports");
                assertThat(first.getBean(DistlockEndpoint.class).locks().leaderOf())
                        .containsExactly("orders", "reports");
            });
        });
    }

    @Test
    void aBlankGroupFailsStartUpNamingTheProperty() {
        runner(new InMemoryLockStore()).withPropertyValues("distlock.leader.groups=orders, ").run(context -> assertThat(
                context).hasFailed().getFailure().rootCause().hasMessageContaining("distlock.leader.groups"));
    }

    /** Records the leadership events the application receives. */
    static class LeadershipEvents {

        private final List<String> granted = new CopyOnWriteArrayList<>();

        private final List<String> revoked = new CopyOnWriteArrayList<>();

        @EventListener
        void granted(LeadershipGrantedEvent event) {
            assertThat(event.lease().isHeld()).isTrue();
            granted.add(event.group());
        }

        @EventListener
        void revoked(LeadershipRevokedEvent event) {
            revoked.add(event.group());
        }

        List<String> granted() {
            return granted;
        }

        List<String> revoked() {
            return revoked;
        }
    }
}
