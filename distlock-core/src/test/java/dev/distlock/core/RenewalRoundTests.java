package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockHandle;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.RenewalResult;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A renewal round of many leases goes to the store as several batch calls at once, and a store that serves them one
 * after another (a Redis server works through pipelined scripts in order) answers the last one long after the
 * round began, although it answers every one promptly once it gets to it. Each batch is bounded by
 * {@code distlock.command-timeout} from the previous batch's answer, not the whole round by one timeout: otherwise
 * the tail of every round counts as failed, those leases are never counted renewed, and the deadline guard reports
 * them lost while the store keeps renewing them (seen with 100,000 held locks on Redis, workload L).
 */
class RenewalRoundTests {

    /** Each batch answered this long after the previous one: within the timeout, but not the round's sum. */
    private static final long STEP_MILLIS = 300;

    @Test
    void aStoreThatAnswersEachBatchInTurnKeepsEveryLeaseOfALongRound() {
        AtomicInteger rounds = new AtomicInteger();
        LockStore inTurn = new ForwardingLockStore(new InMemoryLockStore().connect()) {

            private CompletableFuture<?> previous = CompletableFuture.completedFuture(null);

            @Override
            public synchronized CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
                if (previous.isDone()) {
                    rounds.incrementAndGet(); // the first batch of a round: nothing of the last round is pending
                }
                CompletableFuture<List<RenewalResult>> answer = previous.thenCompose(done -> CompletableFuture
                        .supplyAsync(() -> null, CompletableFuture.delayedExecutor(STEP_MILLIS,
                                TimeUnit.MILLISECONDS)))
                        .thenCompose(done -> super.renew(leases).toCompletableFuture());
                previous = answer;
                return answer;
            }
        };
        // 2 batches per round (answered 300 and 600 ms after it began), a 500 ms timeout; the lease outlasts a
        // renewal period plus a round, so a lease renewed late is still renewed before its deadline.
        LockConfig config = LockConfig.defaults().withLeaseTime(Duration.ofMillis(2400))
                .withCommandTimeout(Duration.ofMillis(500));
        try (StoreLockService service = new StoreLockService(inTurn, config, LockListener.NONE)) {
            service.start();
            List<LockHandle> held = new ArrayList<>();
            for (int i = 0; i < StoreCalls.RENEWAL_BATCH * 2; i++) {
                held.add(service.lock("entity:" + i));
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> rounds.get() >= 4);
            assertThat(held).as("every lease, the second batch's too").allMatch(LockHandle::isHeld);
            held.forEach(LockHandle::unlock);
        }
    }
}
