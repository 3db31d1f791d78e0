package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.LockType;
import dev.distlock.spi.LockRequest;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assertions.assertTimeoutPreemptively;

/**
 * The held-lease registry finds a lease by its owner token (how a session-bound store reports a lost lease) through
 * an index: a ZooKeeper session loss reports every held lease, one event each, and a scan per event made that
 * quadratic in the number of held locks.
 */
class HeldLeasesTests {

    private static StoreLease lease(String ownerToken) {
        // Only the request matters to the registry; no service, store or local queue is involved.
        LockRequest request = new LockRequest("lock-" + ownerToken, LockType.REENTRANT, ownerToken, Duration.ZERO,
                Duration.ofSeconds(30), true);
        return StoreLease.granted(request, 1, null, System.nanoTime(), true);
    }

    @Test
    void everyOneOfManyHeldLeasesIsFoundByItsOwnerWithoutAScan() {
        HeldLeases held = new HeldLeases();
        List<StoreLease> leases = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            StoreLease lease = lease("owner-" + i);
            leases.add(lease);
            held.add(lease);
        }
        // A session loss: one event per held lease. With a scan per event this is 5 * 10^9 comparisons.
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            for (StoreLease lease : leases) {
                assertThat(held.byOwner(lease.request().ownerToken())).containsSame(lease);
                held.remove(lease);
            }
        });
        assertThat(held.snapshot()).isEmpty();
        assertThat(held.byOwner(leases.get(0).request().ownerToken())).isEmpty();
    }
}
