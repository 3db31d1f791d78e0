package dev.distlock.test.support.contract;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockHandle;
import dev.distlock.LockInfo;
import dev.distlock.LockOptions;
import dev.distlock.LockTimeoutException;
import dev.distlock.core.StoreLockService;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The store contract, who holds a lock ({@link dev.distlock.LockService#describe}): read from the store by another
 * instance, with the holder's instance id, its fencing token, a lease within bounds and, where the store keeps a
 * line, its waiters; empty when free; one of several permit holders; and a lock timeout's message names the
 * holder.
 */
@StoreContract
class DescribeContractTests extends ContractNodes {

    private static final String HOLDER = "holder-app@host-a:101";

    private static final String ASKING = "asking-app@host-b:202";

    @Test
    void anotherInstanceSeesTheHolderItsTokenAndItsLease() {
        StoreLockService holder = node(config().withInstanceId(HOLDER));
        StoreLockService asking = node(config().withInstanceId(ASKING));
        assertThat(asking.describe("describe-held")).as("never locked").isEmpty();
        try (LockHandle held = holder.lock("describe-held")) {
            LockInfo info = asking.describe("describe-held").orElseThrow();
            assertThat(info.name()).isEqualTo("describe-held");
            assertThat(info.holder()).isEqualTo(HOLDER);
            assertToken(info, held);
            assertThat(info.leaseRemaining()).isPositive();
            if (storeOf(holder).traits().leasesExpire()) { // a session lease is not counted down by the store
                assertThat(info.leaseRemaining()).isLessThanOrEqualTo(config().leaseTime());
            }
            if (fixture().countsWaiters()) {
                assertThat(info.waiters()).isZero();
            }
            else {
                assertThat(info.waiters()).isNull();
            }
            LockInfo own = holder.describe("describe-held").orElseThrow(); // the holder's own view, from the store
            assertThat(own.holder()).isEqualTo(HOLDER);
            assertToken(own, held); // a quorum's majority may differ from one question to the next
        }
        // A quorum answers the release once a majority released: the rest follows at once.
        await().atMost(Duration.ofSeconds(5)).until(() -> asking.describe("describe-held").isEmpty());
    }

    @Test
    void waitersAreCountedWhereTheStoreKeepsALine() throws Exception {
        StoreLockService holder = node(config().withInstanceId(HOLDER));
        StoreLockService waiting = node(config().withInstanceId(ASKING));
        LockHandle held = holder.lock("describe-waiters");
        CompletableFuture<Optional<LockHandle>> waiter = CompletableFuture.supplyAsync(() -> waiting.tryLock(
                "describe-waiters", LockOptions.defaults().withWaitTime(Duration.ofSeconds(20))));
        if (fixture().countsWaiters()) {
            await().atMost(Duration.ofSeconds(10)).until(() -> Integer.valueOf(1).equals(
                    holder.describe("describe-waiters").orElseThrow().waiters()));
        }
        else {
            // Nothing to wait for: the store tells no waiters, however many there are.
            assertThat(holder.describe("describe-waiters").orElseThrow().waiters()).isNull();
        }
        assertThat(holder.describe("describe-waiters").orElseThrow().holder()).isEqualTo(HOLDER);
        held.unlock();
        try (LockHandle next = waiter.get(20, TimeUnit.SECONDS).orElseThrow()) {
            // A waiter may start on a store hand-over before the store has its confirmation; on a busy machine the
            // confirmation can come after the hand-over's window, and the lease is then reported lost instead.
            await().atMost(Duration.ofSeconds(5)).until(() -> !next.isHeld() || holder.describe("describe-waiters")
                    .filter(described -> described.holder().equals(ASKING)).isPresent());
            Assumptions.assumeTrue(next.isHeld(), "the hand-over was not confirmed in time: reported lost");
            LockInfo info = holder.describe("describe-waiters").orElseThrow();
            assertThat(info.holder()).isEqualTo(ASKING);
            assertToken(info, next);
            assertThat(info.fencingToken()).isGreaterThan(held.fencingToken());
        }
    }

    @Test
    void aNameHeldWithPermitsIsDescribedByOneOfItsHolders() {
        StoreLockService first = node(config().withInstanceId(HOLDER));
        StoreLockService second = node(config().withInstanceId(ASKING));
        Assumptions.assumeTrue(storeOf(first).traits().permits(), "the store has no permits");
        LockOptions two = LockOptions.defaults().withPermits(2);
        try (LockHandle one = first.lock("describe-permits", two);
                LockHandle other = second.lock("describe-permits", two)) {
            LockInfo info = first.describe("describe-permits").orElseThrow();
            assertThat(info.holder()).isIn(HOLDER, ASKING);
            assertToken(info, info.holder().equals(HOLDER) ? one : other);
            assertThat(info.leaseRemaining()).isPositive();
            if (fixture().countsWaiters()) {
                assertThat(info.waiters()).isZero();
            }
        }
        await().atMost(Duration.ofSeconds(5)).until(() -> first.describe("describe-permits").isEmpty());
    }

    @Test
    void aLockTimeoutNamesTheHolder() {
        StoreLockService holder = node(config().withInstanceId(HOLDER));
        StoreLockService late = node(config().withInstanceId(ASKING));
        try (LockHandle held = holder.lock("describe-timeout")) {
            // A quorum's token is its majority's highest, which a node's late grant may still raise.
            String token = fixture().describesExactTokens() ? held.fencingToken() + ")" : "";
            assertThatThrownBy(() -> late.lock("describe-timeout", LockOptions.defaults()
                    .withWaitTime(Duration.ofMillis(200))))
                    .isInstanceOf(LockTimeoutException.class)
                    .hasMessageContaining("held by " + HOLDER + " (fencing token " + token);
        }
    }

    /** The holder's own token; a quorum's may be higher ({@link dev.distlock.test.support.StoreFixture}). */
    private void assertToken(LockInfo info, LockHandle holder) {
        if (fixture().describesExactTokens()) {
            assertThat(info.fencingToken()).isEqualTo(holder.fencingToken());
        }
        else {
            assertThat(info.fencingToken()).isGreaterThanOrEqualTo(holder.fencingToken());
        }
    }
}
