package dev.distlock.test.support.contract;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockType;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The store contract, force release: the waiter gets the lock with a higher token, the holder learns of the loss,
 * every reader ends.
 */
@StoreContract
class ForceReleaseContractTests extends ContractNodes {

    @Test
    void aForcedReleaseHandsTheLockToTheWaiterWithAHigherTokenAndTheHolderLearnsOfTheLoss() throws Exception {
        LockConfig shortLease = shortLease();
        StoreLockService holder = node(shortLease);
        StoreLockService waiter = node(shortLease);
        StoreLockService operator = node(shortLease);
        LockHandle stuck = holder.lock("forced");
        CompletableFuture<LockHandle> next = CompletableFuture.supplyAsync(
                () -> waiter.lock("forced", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20))));
        await().atMost(Duration.ofSeconds(10)).until(() -> storeOf(waiter).attempts() > 0);
        assertThat(next).as("the holder's watchdog keeps the lock").isNotDone();

        assertThat(operator.forceRelease("forced")).isTrue();
        LockHandle taken = next.get(20, TimeUnit.SECONDS);
        assertThat(taken.fencingToken()).as("the next holder's token").isGreaterThan(stuck.fencingToken());
        await().atMost(Duration.ofSeconds(10)).until(() -> !stuck.isHeld());
        assertThat(holder.heldLocks()).isEmpty();
        assertThat(taken.isHeld()).as("the old holder's loss leaves the new holder alone").isTrue();
        assertThatCode(stuck::unlock).as("a lost lease is reported, not thrown").doesNotThrowAnyException();
        assertThat(taken.isHeld()).as("the old holder's late unlock leaves the new holder alone").isTrue();
        taken.unlock();
        assertThat(operator.forceRelease("forced")).as("a free lock").isFalse();
    }

    @Test
    void aForcedReleaseOfALockOfThisInstanceEndsItsHandleAtOnce() {
        StoreLockService node = node();
        LockHandle held = node.lock("forced-here");
        assertThat(node.forceRelease("forced-here")).isTrue();
        assertThat(held.isHeld()).isFalse();
        assertThat(node.heldLocks()).isEmpty();
        try (LockHandle again = takeFreedLock(node, "forced-here")) {
            assertThat(again.fencingToken()).isGreaterThan(held.fencingToken());
        }
        assertThatThrownBy(() -> node.forceRelease("")).isInstanceOf(IllegalArgumentException.class);
    }

    @Test
    void aForcedReleaseEndsEveryReader() {
        StoreLockService readers = node(shortLease());
        StoreLockService writer = node();
        LockOptions read = LockOptions.defaults().withType(LockType.READ);
        LockHandle first = readers.lock("forced-read", read);
        Optional<LockHandle> second = sharesReadLocks()
                ? Optional.of(writer.lock("forced-read", read.withWaitTime(Duration.ZERO))) : Optional.empty();
        assertThat(writer.forceRelease("forced-read")).isTrue();
        second.ifPresent(shared -> assertThat(shared.isHeld()).as("a reader of the operator's instance").isFalse());
        try (LockHandle taken = takeFreedLock(writer, "forced-read")) {
            assertThat(taken.fencingToken()).isGreaterThan(first.fencingToken());
            await().atMost(Duration.ofSeconds(10)).until(() -> !first.isHeld());
        }
    }
}
