package dev.distlock.core;

import java.time.Duration;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LockType;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The deadline guard of {@link LeaseScheduler} watches every renewed lease, also one that comes in while the guard
 * scans the leases to re-arm itself (review 4, F2: a store hand-over's short deadline went unwatched until the next
 * renewal round, a lease time / 3 later).
 */
class LeaseSchedulerTests {

    private final Queue<StoreLease> lost = new ConcurrentLinkedQueue<>();

    private final AtomicReference<LeaseScheduler> self = new AtomicReference<>();

    private final LeaseScheduler scheduler = new LeaseScheduler(
            new StoreCalls(new InMemoryLockStore().connect(), Duration.ofSeconds(1)), Duration.ofSeconds(30),
            LockListener.NONE, lease -> {
                lost.add(lease);
                self.get().stopRenewing(lease); // as the engine's ending does
            });

    private final LocalQueues queues = new LocalQueues();

    @AfterEach
    void stop() {
        scheduler.stop();
    }

    private StoreLease lease(String name, Duration leaseTime) {
        LockRequest request = new LockRequest(name, LockType.REENTRANT, "token-" + name, Duration.ZERO, leaseTime,
                true, 1);
        return StoreLease.granted(request, 1, queues.join(name, false), System.nanoTime(), true);
    }

    @Test
    void aLeaseThatComesInWhileTheGuardScansIsReportedByItsDeadline() throws Exception {
        self.set(scheduler);
        StoreLease late = lease("late", Duration.ofSeconds(30));
        StoreLease first = lease("first", Duration.ofMillis(100));
        scheduler.renew(late);
        scheduler.renew(first);
        // The guard fires at the first lease's deadline, reports it and scans the rest; in the middle of that scan
        // (after it has passed over the leases) another lease comes in on another thread, with a deadline between
        // the passed one and the late one.
        StoreLease handedOver = lease("handed-over", Duration.ofMillis(400));
        CountDownLatch added = new CountDownLatch(1);
        Thread adder = new Thread(() -> {
            scheduler.renew(handedOver);
            added.countDown();
        });
        scheduler.onScanned(() -> {
            scheduler.onScanned(() -> {
            });
            adder.start();
            // The adder has returned, or waits for this scan to end (the lock): either way its add is done.
            await().atMost(Duration.ofSeconds(5)).until(() -> added.getCount() == 0
                    || adder.getState() == Thread.State.BLOCKED);
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> lost.contains(first));
        assertThat(added.await(5, TimeUnit.SECONDS)).isTrue();
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(lost).contains(handedOver));
        assertThat(lost).doesNotContain(late);
    }
}
