package dev.distlock.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.List;

import dev.distlock.actuate.DistlockEndpoint.DistlockDescriptor;
import dev.distlock.actuate.DistlockEndpoint.HeldLockDescriptor;
import dev.distlock.core.HeldLockInfo;
import dev.distlock.core.HeldLockRegistry;
import dev.distlock.core.WatchdogStatus;
import dev.distlock.spi.StoreHealth;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The endpoint's view of a registry snapshot; the HTTP shape with the real engine is in
 * {@code ObservabilityWebTests}.
 */
class DistlockEndpointTests {

    private static final Instant NOW = Instant.parse("2025-01-01T12:00:10Z");

    @Test
    void listsHeldLocksWithTimesAndCounts() {
        HeldLockInfo watched = new HeldLockInfo("stock:42", 9, NOW.minusSeconds(10), Duration.ofSeconds(10),
                Duration.ofSeconds(25), true, 2, NOW.minusSeconds(3));
        HeldLockInfo fixed = new HeldLockInfo("report", 3, NOW.minusSeconds(1), Duration.ofSeconds(1),
                Duration.ofMillis(500), false, 0, null);
        WatchdogStatus status = new WatchdogStatus(true, 1, NOW.minusSeconds(1), NOW.minusSeconds(3), 0, true);
        HeldLockRegistry registry = new HeldLockRegistry() {
            @Override
            public List<HeldLockInfo> heldLocks() {
                return List.of(watched, fixed);
            }

            @Override
            public WatchdogStatus watchdogStatus() {
                return status;
            }

            @Override
            public StoreHealth storeHealth(Duration timeout) {
                return new StoreHealth(true, java.util.Map.of());
            }
        };

        DistlockDescriptor descriptor = new DistlockEndpoint(registry, Clock.fixed(NOW, ZoneOffset.UTC)).locks();

        assertThat(descriptor.counts().held()).isEqualTo(2);
        assertThat(descriptor.counts().watchdog()).isEqualTo(1);
        assertThat(descriptor.counts().fixedLease()).isEqualTo(1);
        assertThat(descriptor.counts().byLock()).containsEntry("stock", 1).containsEntry("report", 1);
        assertThat(descriptor.locks()).extracting(HeldLockDescriptor::name).containsExactly("stock:42", "report");
        HeldLockDescriptor first = descriptor.locks().get(0);
        assertThat(first.fencingToken()).isEqualTo(9);
        assertThat(first.acquiredAt()).isEqualTo("2025-01-01T12:00:00Z");
        assertThat(first.heldForMillis()).isEqualTo(10_000);
        assertThat(first.leaseRemainingMillis()).isEqualTo(25_000);
        assertThat(first.renewals()).isEqualTo(2);
        assertThat(first.sinceLastRenewalMillis()).isEqualTo(3_000);
        assertThat(descriptor.locks().get(1).sinceLastRenewalMillis()).isNull();
        assertThat(descriptor.watchdog().onTime()).isTrue();
        assertThat(descriptor.watchdog().sinceLastSuccessMillis()).isEqualTo(3_000);
    }
}
