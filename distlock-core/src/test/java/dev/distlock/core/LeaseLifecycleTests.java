package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.StoreTraits;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A lease is one state machine shared by the local streak that passes it on (review 4, F1 and F4): a renewal's
 * answer reaches whichever thread holds the lease when it comes, and a fixed lease is never counted on past its
 * deadline, whatever the store's leases do and however busy the engine's scheduler is.
 */
class LeaseLifecycleTests {

    private final List<StoreLockService> services = new ArrayList<>();

    private final CountDownLatch unblock = new CountDownLatch(1);

    private final AtomicInteger lost = new AtomicInteger();

    @AfterEach
    void close() {
        unblock.countDown();
        services.forEach(StoreLockService::close);
    }

    private StoreLockService node(LockStore store, LockConfig config) {
        StoreLockService service = new StoreLockService(store, config, new LockListener() {
            @Override
            public void leaseLost(LockHandle handle) {
                lost.incrementAndGet();
            }
        });
        services.add(service);
        service.start();
        return service;
    }

    /**
     * F1: node a's renewal is on its way while the lease is force-released in the store and its holder hands it to
     * the next local thread; the LOST answer is for the lease, so the thread that holds it now is told at once (it
     * was dropped before, and the successor held, unreported, until the next renewal while node b held the lock).
     */
    @Test
    void aLossFoundByARenewalReachesTheLocalThreadTheLeaseWasHandedToMeanwhile() throws Exception {
        InMemoryLockStore memory = InMemoryLockStore.withClockTokens();
        CompletableFuture<Void> renewalSent = new CompletableFuture<>();
        CompletableFuture<Void> answer = new CompletableFuture<>();
        LockStore heldBack = new ForwardingLockStore(memory.connect()) {
            @Override
            public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
                if (renewalSent.complete(null)) {
                    return answer.thenCompose(ignored -> super.renew(leases)); // answered when the test says
                }
                return super.renew(leases);
            }
        };
        LockConfig config = LockConfig.defaults().withLeaseTime(Duration.ofSeconds(6))
                .withWaitTime(Duration.ofSeconds(30)).withLocalHandOff(1000, Duration.ofMinutes(1));
        StoreLockService a = node(heldBack, config);
        StoreLockService b = node(memory.connect(), config);

        LockHandle first = a.lock("x");
        CompletableFuture<LockHandle> successor = new CompletableFuture<>();
        Thread next = new Thread(() -> successor.complete(a.lock("x")));
        next.start();
        await("the next thread queued locally").atMost(Duration.ofSeconds(5))
                .until(() -> next.getState() == Thread.State.TIMED_WAITING);
        renewalSent.get(10, TimeUnit.SECONDS);

        assertThat(b.forceRelease("x")).isTrue();
        first.unlock(); // the local hand-off: the same store lease, now the next thread's
        LockHandle second = successor.get(5, TimeUnit.SECONDS);
        assertThat(second.fencingToken()).isGreaterThan(first.fencingToken());
        answer.complete(null); // LOST: the lease is gone in the store
        LockHandle other = b.tryLock("x", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5))).orElseThrow();

        // Well within the renewal period (2 s), which is when the next renewal would tell it otherwise.
        await("the successor is told").atMost(Duration.ofMillis(700))
                .until(() -> !second.isHeld() && lost.get() == 1);
        other.unlock();
        second.unlock();
    }

    /**
     * F4: on a store whose leases do not expire (etcd, ZooKeeper), a node cut off from the store cannot end its
     * fixed leases there: two expiries' releases hang. The third fixed lease still stops counting at its deadline,
     * and its expiry is told on time (it waited behind the hanging releases on the scheduler's two threads before).
     */
    @Test
    void aFixedLeaseStopsCountingAtItsDeadlineWhileReleasesToAnUnreachableStoreHang() {
        InMemoryLockStore memory = new InMemoryLockStore();
        LockStore cutOff = new ForwardingLockStore(memory.connect()) {
            @Override
            public StoreTraits traits() {
                return StoreTraits.of(StoreTraits.LeaseKind.SESSION, StoreTraits.TokenSource.COUNTER);
            }

            @Override
            public CompletionStage<ReleaseResult> release(Lease lease) {
                return new CompletableFuture<>(); // never answers: the node is cut off
            }
        };
        AtomicLong expiredAt = new AtomicLong();
        StoreLockService a = new StoreLockService(cutOff, LockConfig.defaults(), new LockListener() {
            @Override
            public void expired(LockHandle handle) {
                if (handle.name().equals("job-3")) {
                    expiredAt.set(System.nanoTime());
                }
            }
        });
        services.add(a);
        a.start();

        LockOptions shortLease = LockOptions.defaults().withLeaseTime(Duration.ofMillis(200));
        a.lock("job-1", shortLease);
        a.lock("job-2", shortLease);
        long start = System.nanoTime();
        LockHandle third = a.lock("job-3", LockOptions.defaults().withLeaseTime(Duration.ofMillis(600)));

        await().atMost(Duration.ofSeconds(5)).until(() -> !third.isHeld());
        long notHeldAfter = System.nanoTime() - start;
        assertThat(Duration.ofNanos(notHeldAfter)).as("counted on no longer than its lease")
                .isLessThan(Duration.ofMillis(900));
        await().atMost(Duration.ofSeconds(5)).until(() -> expiredAt.get() != 0);
        assertThat(Duration.ofNanos(expiredAt.get() - start)).as("its expiry told on time")
                .isLessThan(Duration.ofMillis(1200));
    }
}
