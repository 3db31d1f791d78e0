package dev.distlock.test.support.contract;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.StoreLockService;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The store contract, permits: up to the permits hold at once with tokens in grant order, callers who disagree on
 * the number get an error, a permit whose lease ran out is free again. A store without permits refuses them.
 */
@StoreContract
class PermitContractTests extends ContractNodes {

    @Test
    void upToThePermitsHoldAtOnceWithTokensIncreasingInGrantOrder() throws Exception {
        StoreLockService a = node();
        StoreLockService b = node();
        assumePermits(a);
        LockOptions three = LockOptions.defaults().withPermits(3).withWaitTime(Duration.ZERO);
        LockHandle first = a.lock("pool", three);
        LockHandle second = b.lock("pool", three);
        LockHandle third = a.lock("pool", three);
        assertThat(List.of(first, second, third)).extracting(LockHandle::fencingToken).isSorted()
                .doesNotHaveDuplicates();
        assertThat(b.tryLock("pool", three)).as("a fourth holder of three permits").isEmpty();
        second.unlock();
        Optional<LockHandle> fourth = b.tryLock("pool", three.withWaitTime(FREED_LOCK_WAIT));
        assertThat(fourth).as("the permit freed by a release").isPresent();
        assertThat(fourth.get().fencingToken()).isGreaterThan(third.fencingToken());
        List.of(first, third, fourth.get()).forEach(LockHandle::unlock);

        // Two nodes, four threads each, on two permits: never more than two inside, tokens in the store's grant
        // order. That order is the store's own (a reservation, a place in line), which callers may observe
        // differently for two waiters let in at once; what they always observe is that a call made after a grant
        // returned gets a higher token than that grant (see LockMode.Permits).
        AtomicInteger inside = new AtomicInteger();
        AtomicInteger mostInside = new AtomicInteger();
        AtomicLong events = new AtomicLong();
        List<PermitGrant> grants = new ArrayList<>();
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<?>> work = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                StoreLockService node = t % 2 == 0 ? a : b;
                work.add(pool.submit(() -> {
                    for (int i = 0; i < 5; i++) {
                        long calledAfter = events.get();
                        try (LockHandle permit = node.lock("pool-load", LockOptions.defaults().withPermits(2)
                                .withWaitTime(Duration.ofSeconds(20)))) {
                            synchronized (grants) {
                                grants.add(new PermitGrant(calledAfter, events.incrementAndGet(),
                                        permit.fencingToken()));
                            }
                            mostInside.accumulateAndGet(inside.incrementAndGet(), Math::max);
                            Thread.onSpinWait();
                            inside.decrementAndGet();
                        }
                    }
                    return null;
                }));
            }
            for (Future<?> done : work) {
                done.get(60, TimeUnit.SECONDS);
            }
        }
        finally {
            pool.shutdownNow();
        }
        assertThat(mostInside.get()).as("holders at once").isBetween(1, 2);
        int compared = 0;
        for (PermitGrant later : grants) {
            for (PermitGrant earlier : grants) {
                if (earlier.returnedAt() <= later.calledAfter()) {
                    assertThat(later.token()).as("the token of a call made after a grant of token %d returned",
                            earlier.token()).isGreaterThan(earlier.token());
                    compared++;
                }
            }
        }
        assertThat(compared).as("grants followed by a later call").isPositive();
        assertThat(grants).extracting(PermitGrant::token).hasSize(40).doesNotHaveDuplicates();
    }

    /**
     * One permit grant as its caller saw it.
     *
     * @param calledAfter the events counted before the call was made
     * @param returnedAt the event its return counted
     * @param token its fencing token
     */
    private record PermitGrant(long calledAfter, long returnedAt, long token) {
    }

    @Test
    void callersWhoDisagreeOnThePermitsGetAnErrorNamingBothNumbers() {
        StoreLockService a = node();
        StoreLockService b = node();
        if (!storeOf(a).traits().permits()) {
            assertThatThrownBy(() -> a.lock("pool", LockOptions.defaults().withPermits(3)))
                    .isInstanceOf(LockException.class).hasMessageContaining("does not support permits");
            return;
        }
        try (LockHandle held = a.lock("pool", LockOptions.defaults().withPermits(3))) {
            assertThatThrownBy(() -> b.tryLock("pool", LockOptions.defaults().withPermits(2)))
                    .isInstanceOf(LockException.class).hasMessageContaining("3 permits").hasMessageContaining("2");
            assertThatThrownBy(() -> b.tryLock("pool", NO_WAIT))
                    .as("a plain lock of a name held with permits").isInstanceOf(LockException.class)
                    .hasMessageContaining("3 permits").hasMessageContaining("asks for 1");
        }
        try (LockHandle plain = a.lock("plain")) {
            assertThatThrownBy(() -> b.tryLock("plain", LockOptions.defaults().withPermits(2)))
                    .isInstanceOf(LockException.class).hasMessageContaining("1 permit,")
                    .hasMessageContaining("asks for 2");
        }
    }

    @Test
    void aPermitWhoseLeaseRanOutIsFreeAgain() {
        StoreLockService crashed = node();
        StoreLockService next = node();
        assumePermits(crashed);
        LockOptions two = LockOptions.defaults().withPermits(2);
        // Never unlocked: a holder that died keeps its permits only until its fixed leases run out.
        crashed.lock("pool-lease", two.withLeaseTime(Duration.ofMillis(800)));
        crashed.lock("pool-lease", two.withLeaseTime(Duration.ofMillis(800)));
        assertThat(next.tryLock("pool-lease", two.withWaitTime(Duration.ZERO))).isEmpty();
        try (LockHandle freed = next.lock("pool-lease", two.withWaitTime(Duration.ofSeconds(10)))) {
            assertThat(freed.isHeld()).isTrue();
        }
    }

    private void assumePermits(StoreLockService node) {
        Assumptions.assumeTrue(storeOf(node).traits().permits(),
                () -> storeOf(node) + " does not support permits yet: permit tests skipped");
    }
}
