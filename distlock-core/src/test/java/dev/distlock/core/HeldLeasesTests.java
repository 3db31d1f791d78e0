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
 * quadratic in the number of held locks. A lease handed to the next local thread shares its owner token.
 */
class HeldLeasesTests {

    private static LeaseHandle lease(String ownerToken) {
        // Only the request matters to the registry; no service, store or local queue is involved.
        LockRequest request = new LockRequest("lock-" + ownerToken, LockType.REENTRANT, ownerToken, Duration.ZERO,
                Duration.ofSeconds(30), true);
        return new LeaseHandle(null, request, 1, null, System.nanoTime(), true);
    }

    @Test
    void everyOneOfManyHeldLeasesIsFoundByItsOwnerWithoutAScan() {
        HeldLeases held = new HeldLeases();
        List<LeaseHandle> leases = new ArrayList<>();
        for (int i = 0; i < 100_000; i++) {
            LeaseHandle lease = lease("owner-" + i);
            leases.add(lease);
            held.add(lease);
        }
        // A session loss: one event per held lease. With a scan per event this is 5 * 10^9 comparisons.
        assertTimeoutPreemptively(Duration.ofSeconds(10), () -> {
            for (LeaseHandle lease : leases) {
                assertThat(held.byOwner(lease.request().ownerToken())).containsSame(lease);
                held.remove(lease);
            }
        });
        assertThat(held.snapshot()).isEmpty();
        assertThat(held.byOwner(leases.get(0).request().ownerToken())).isEmpty();
    }

    @Test
    void aLeaseHandedOverLocallyIsFoundByTheSharedOwnerTokenWhicheverHolderLeavesTheRegistryFirst() {
        HeldLeases held = new HeldLeases();
        LeaseHandle first = lease("shared-owner");
        LeaseHandle second = first.handOver(2);
        held.add(first);
        held.add(second); // the next thread may register before the previous one has left
        held.remove(first);
        assertThat(held.byOwner("shared-owner")).containsSame(second);

        LeaseHandle third = second.handOver(3);
        held.remove(second); // or leave first
        held.add(third);
        assertThat(held.byOwner("shared-owner")).containsSame(third);
        held.remove(third);
        assertThat(held.byOwner("shared-owner")).isEmpty();
    }
}
