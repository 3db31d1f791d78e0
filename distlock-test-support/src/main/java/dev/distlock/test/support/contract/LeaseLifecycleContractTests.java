package dev.distlock.test.support.contract;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.OnLeaseLost;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The store contract, leases and faults: the watchdog keeps a lock past several leases, a lost lease is reported,
 * a store that is down fails closed and locking comes back with it, a graceful shutdown drains and releases.
 */
@StoreContract
class LeaseLifecycleContractTests extends ContractNodes {

    @Test
    void watchdogKeepsTheLockPastSeveralLeases() throws Exception {
        // A 1 s lease (renewed every third of it): three leases pass in 3.3 s of this test, on every fixture.
        LockConfig shortLease = config().withLeaseTime(Duration.ofSeconds(1));
        StoreLockService a = node(shortLease);
        StoreLockService b = node(shortLease);
        try (LockHandle handle = a.lock("long-work")) {
            Thread.sleep(3300); // the behaviour under test: work that outlasts three leases
            assertThat(handle.isHeld()).isTrue();
            assertThat(b.tryLock("long-work", NO_WAIT)).isEmpty();
            if (storeOf(a).traits().leasesExpire()) {
                assertThat(a.heldLocks()).singleElement()
                        .satisfies(info -> assertThat(info.renewals()).isPositive());
            }
            else {
                // A lease that lasts as long as the store's session (ZooKeeper) is kept without renewal traffic.
                assertThat(a.heldLocks()).singleElement().satisfies(info -> assertThat(info.renewals()).isZero());
                assertThat(storeOf(a).renewals()).isZero();
            }
        }
    }

    @Test
    void lostLeaseIsReportedAndThrownOnUnlockWhenConfigured() {
        StoreLockService a = node(config().withLeaseTime(Duration.ofMillis(600)).withOnLeaseLost(OnLeaseLost.THROW));
        LockHandle handle = a.lock("broken");
        breakLease("broken");
        await().atMost(Duration.ofSeconds(10)).until(() -> !handle.isHeld());
        assertThat(a.heldLocks()).isEmpty();
        assertThatThrownBy(handle::unlock).isInstanceOf(LeaseLostException.class).hasMessageContaining("broken");
        Optional<LockHandle> again = a.tryLock("broken", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)));
        assertThat(again).isPresent();
        again.get().unlock();
    }

    @Test
    void storeDownFailsClosedAndLockingWorksAgainWhenItIsBack() {
        StoreLockService a = node();
        a.lock("warm").unlock();
        stopStore();
        try {
            AtomicBoolean ran = new AtomicBoolean();
            assertThatThrownBy(() -> a.runWithLock("down", () -> ran.set(true)))
                    .isInstanceOf(LockUnavailableException.class);
            assertThat(ran).isFalse();
        }
        finally {
            startStore();
        }
        // Back, but the client may still be reconnecting (ZooKeeper's backs off): unavailable until then, not longer.
        await("locking again once the store is back").atMost(Duration.ofSeconds(30))
                .ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .untilAsserted(() -> a.lock("down").unlock());
    }

    @Test
    void gracefulShutdownWaitsForRunningWorkAndReleasesWhatIsLeft() throws Exception {
        StoreLockService a = node();
        StoreLockService b = node();
        CountDownLatch working = new CountDownLatch(1);
        CountDownLatch finish = new CountDownLatch(1);
        Thread work = new Thread(() -> a.runWithLock("draining", () -> {
            working.countDown();
            try {
                finish.await();
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }));
        work.start();
        working.await();
        assertThat(a.awaitIdle(Duration.ofMillis(200))).as("the work still runs").isFalse();
        assertThatThrownBy(() -> a.lock("another")).isInstanceOf(LockUnavailableException.class)
                .hasMessageContaining("shutting down");
        assertThat(b.tryLock("draining", NO_WAIT))
                .as("not released under the running work").isEmpty();
        finish.countDown();
        assertThat(a.awaitIdle(Duration.ofSeconds(10))).isTrue();
        work.join();
        LockHandle kept = b.lock("left-over");
        b.close();
        assertThat(kept.isHeld()).isFalse();
        Optional<LockHandle> free = node().tryLock("left-over", NO_WAIT);
        assertThat(free).as("close() released what was left").isPresent();
        free.get().unlock();
    }
}
