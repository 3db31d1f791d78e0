package dev.distlock.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static dev.distlock.test.DistlockAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * Each assertion of {@link LockServiceAssert} passes when the behaviour is there and fails, saying what it
 * expected and what it found, when it is not. (AssertJ's {@code assertThat} and distlock's are imported side by
 * side, as applications do.)
 */
class LockServiceAssertTests {

    private final InMemoryLockService locks = new InMemoryLockService();

    @AfterEach
    void close() {
        locks.close();
    }

    @Test
    void hasBeenAcquired() {
        locks.runWithLock("stock:42", () -> {
        });
        assertThat(locks).hasBeenAcquired("stock:42");
        assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(locks).hasBeenAcquired("stock:7"))
                .withMessage("Expected lock 'stock:7' to have been acquired, but the locks acquired were [stock:42]");
        try (InMemoryLockService unused = new InMemoryLockService()) {
            assertThatExceptionOfType(AssertionError.class)
                    .isThrownBy(() -> assertThat(unused).hasBeenAcquired("stock:7"))
                    .withMessage("Expected lock 'stock:7' to have been acquired, but no lock was acquired");
        }
    }

    @Test
    void hasBeenAcquiredTimesCountsGrantsNotReentrantHolds() {
        locks.runWithLock("a", () -> locks.runWithLock("a", () -> {
        }));
        locks.runWithLock("a", () -> {
        });
        assertThat(locks).hasBeenAcquired("a", 2).hasBeenAcquired("b", 0);
        assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(locks).hasBeenAcquired("a", 3))
                .withMessage("Expected lock 'a' to have been acquired 3 time(s), but it was acquired 2 time(s)");
    }

    @Test
    void hasNotBeenAcquired() {
        locks.runWithLock("a", () -> {
        });
        assertThat(locks).hasNotBeenAcquired("b");
        assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(locks).hasNotBeenAcquired("a"))
                .withMessage("Expected lock 'a' not to have been acquired, but it was acquired 1 time(s)");
    }

    @Test
    void hasNoLockHeldAndIsHeld() {
        LockHandle a = locks.lock("a");
        locks.runWithLock("b", () -> {
        });
        assertThat(locks).isHeld("a");
        assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(locks).hasNoLockHeld())
                .withMessage("Expected no lock to be held, but these are: [a]");
        assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(locks).isHeld("b"))
                .withMessage("Expected lock 'b' to be held, but it is not (it was released or its lease ended)");
        assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(locks).isHeld("c"))
                .withMessage("Expected lock 'c' to be held, but it is not (it was never acquired)");
        a.unlock();
        assertThat(locks).hasNoLockHeld();
    }

    @Test
    void aLockWhoseFixedLeaseRanOutIsNotHeld() {
        LockHandle handle = locks.lock("fixed", LockOptions.defaults().withLeaseTime(Duration.ofMillis(100)));
        await().atMost(Duration.ofSeconds(5)).until(() -> !handle.isHeld());
        assertThat(locks).hasNoLockHeld();
        assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(locks).isHeld("fixed"));
    }

    @Test
    void ranUnderLock() {
        assertThat(locks).ranUnderLock("job", () -> locks.runWithLock("job", () -> {
        }));
    }

    @Test
    void ranUnderLockFailsWhenTheCallTookNoLockOrAnother() {
        assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(locks).ranUnderLock("job", () -> {
        })).withMessage("Expected the call to run under lock 'job', but it acquired no lock");
        assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(locks).ranUnderLock("job",
                () -> locks.runWithLock("other", () -> {
                }))).withMessage("Expected the call to run under lock 'job', but it acquired only [other]");
    }

    @Test
    void ranUnderLockFailsWhenTheLockWasTakenBeforeTheCall() {
        // Re-entered from an enclosing scope: the call itself did not take the lock.
        locks.runWithLock("job", () -> assertThatExceptionOfType(AssertionError.class)
                .isThrownBy(() -> assertThat(locks).ranUnderLock("job", () -> locks.runWithLock("job", () -> {
                }))).withMessage("Expected the call to run under lock 'job', but it acquired no lock"));
    }

    @Test
    void ranUnderLockFailsWhenTheLockOutlivesTheCall() {
        CompletableFuture<LockHandle> taken = new CompletableFuture<>();
        assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(locks).ranUnderLock("job",
                () -> taken.complete(locks.lock("job"))))
                .withMessage("Expected lock 'job' to be released when the call returned, but it is still held");
        taken.join().unlock();
    }

    @Test
    void ranUnderLockReportsWhatTheCallThrewWithItsStackTrace() {
        IllegalStateException boom = new IllegalStateException("boom");
        assertThatExceptionOfType(AssertionError.class).isThrownBy(() -> assertThat(locks).as("deduct")
                .ranUnderLock("job", () -> locks.runWithLock("job", () -> {
                    throw boom;
                }))).withMessage("[deduct] Expected the call to run under lock 'job', but it threw "
                        + "java.lang.IllegalStateException: boom")
                .withCause(boom);
    }

    @Test
    void assertionsChainAndNameTheActualWhenItIsNull() {
        locks.runWithLock("a", () -> {
        });
        assertThat(locks).hasBeenAcquired("a").hasBeenAcquired("a", 1).hasNotBeenAcquired("b").hasNoLockHeld();
        assertThatExceptionOfType(AssertionError.class)
                .isThrownBy(() -> assertThat((InMemoryLockService) null).hasNoLockHeld())
                .withMessageContaining("Expecting actual not to be null");
        // AssertJ's own assertThat still applies to everything else.
        assertThat(List.of(1)).hasSize(1);
    }
}
