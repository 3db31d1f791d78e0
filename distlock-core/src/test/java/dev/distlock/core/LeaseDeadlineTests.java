package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.LockHandle;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.RenewalResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A watchdog lease whose renewals fail: its holder is told of the loss by the lease's deadline, also while a
 * renewal call hangs (before, only once the call returned — after the store could have granted the lock to another
 * node, so a holder dying meanwhile never learned it ran unprotected: one violation of the fault campaign).
 * {@code LocalHandOffTests} checks that such a lease is not handed to a local waiter either.
 */
class LeaseDeadlineTests {

    private final InMemoryLockStore memory = new InMemoryLockStore();

    private final List<StoreLockService> services = new ArrayList<>();

    private final CountDownLatch unblockRenewals = new CountDownLatch(1);

    @AfterEach
    void close() {
        unblockRenewals.countDown();
        services.forEach(StoreLockService::close);
    }

    private StoreLockService node(LockStore store, Duration lease, LockListener listener) {
        StoreLockService service = new StoreLockService(store, LockConfig.defaults().withLeaseTime(lease), listener);
        services.add(service);
        service.start();
        return service;
    }

    @Test
    void aHolderIsToldOfItsLossByTheLeaseDeadlineWhileARenewalCallHangs() {
        AtomicBoolean hang = new AtomicBoolean();
        LockStore store = new ForwardingLockStore(memory.connect()) {
            @Override
            public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
                if (hang.get()) {
                    // A store that stopped answering: the engine waits for it up to its command timeout.
                    return CompletableFuture.supplyAsync(() -> {
                        try {
                            unblockRenewals.await();
                        }
                        catch (InterruptedException ex) {
                            Thread.currentThread().interrupt();
                        }
                        return Collections.nCopies(leases.size(), RenewalResult.ERROR);
                    });
                }
                return super.renew(leases);
            }
        };
        AtomicLong lostAtNanos = new AtomicLong();
        Duration lease = Duration.ofMillis(600);
        StoreLockService service = node(store, lease, new LockListener() {
            @Override
            public void leaseLost(LockHandle handle) {
                lostAtNanos.set(System.nanoTime());
            }
        });
        LockHandle held = service.lock("hanging");

        long hangFrom = System.nanoTime();
        hang.set(true);

        await().atMost(Duration.ofSeconds(5)).until(() -> lostAtNanos.get() != 0);
        assertThat(held.isHeld()).isFalse();
        // The last renewal was sent before the hang began, so the deadline is at most a lease after it (the slack
        // is for a loaded machine's scheduling, far below the endless hang it would be without the guard).
        assertThat(Duration.ofNanos(lostAtNanos.get() - hangFrom)).isLessThan(lease.plusMillis(900));
    }
}
