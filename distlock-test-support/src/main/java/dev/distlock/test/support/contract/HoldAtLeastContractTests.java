package dev.distlock.test.support.contract;

import java.time.Duration;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.StoreLockService;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The store contract, hold at least: a lock kept after an earlier unlock, then released; a shutdown leaves it to its
 * lease.
 */
@StoreContract
class HoldAtLeastContractTests extends ContractNodes {

    @Test
    void holdAtLeastKeepsTheLockAfterAnEarlierUnlockAndThenReleasesIt() {
        StoreLockService a = node();
        StoreLockService b = node();
        Duration hold = Duration.ofMillis(1000);
        long started = System.nanoTime();
        LockHandle job = a.lock("hold-at-least", LockOptions.defaults().withHoldAtLeast(hold));
        job.unlock();
        assertThat(job.isHeld()).as("the caller's hold ended").isFalse();
        assertThat(storeOf(a).releases()).as("the unlock returns without releasing in the store").isZero();
        assertThat(b.tryLock("hold-at-least", NO_WAIT))
                .as("held on after the unlock").isEmpty();
        // Released when the time is up, not left to the lease (a watchdog lease of 30 s, above the wait).
        LockHandle next = b.lock("hold-at-least", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10)));
        assertThat(Duration.ofNanos(System.nanoTime() - started)).as("held at least that long")
                .isGreaterThanOrEqualTo(hold);
        assertThat(next.fencingToken()).isGreaterThan(job.fencingToken());
        assertThat(storeOf(a).releases()).isEqualTo(1);
        next.unlock();
    }

    @Test
    void aShutdownNeitherWaitsForNorEndsAHoldAtLeast() {
        StoreLockService a = node();
        Assumptions.assumeTrue(storeOf(a).traits().leasesExpire(), "the store's locks end with the instance's session: a "
                + "hold at least ends with it");
        StoreLockService b = node();
        LockOptions job = LockOptions.defaults().withLeaseTime(Duration.ofMillis(1200))
                .withHoldAtLeast(Duration.ofMillis(800));
        a.lock("hold-shutdown", job).unlock();
        assertThat(a.awaitIdle(Duration.ZERO)).as("no held work to wait for").isTrue();
        a.close();
        assertThat(b.tryLock("hold-shutdown", NO_WAIT))
                .as("the shutdown left the lock to its lease").isEmpty();
        b.lock("hold-shutdown", LockOptions.defaults().withWaitTime(Duration.ofSeconds(10))).unlock();
    }
}
