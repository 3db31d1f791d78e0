package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.distlock.LockHandle;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.Waiting;
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

    /**
     * A lock call on the store's connection while a long round is under way is served in between the round's
     * batches, not behind all of them: a round keeps only {@link StoreCalls#RENEWALS_IN_FLIGHT} batches at the store
     * and sends the next when one answers. Sent all at once, the 2,000 batches of a million held locks held a
     * release up for 2 s, past the command timeout (workload L).
     */
    @Test
    void aLockCallDuringALongRoundIsServedBeforeTheRoundEnds() throws Exception {
        int batches = 2 * StoreCalls.RENEWALS_IN_FLIGHT + 2;
        List<String> served = Collections.synchronizedList(new ArrayList<>());
        AtomicBoolean holding = new AtomicBoolean();
        CountDownLatch roundUnderWay = new CountDownLatch(1);
        LockStore pipelined = new ForwardingLockStore(new InMemoryLockStore().connect()) {

            /** The last call sent: the store serves each after it, like Redis the calls pipelined on a connection. */
            private CompletableFuture<?> previous = CompletableFuture.completedFuture(null);

            @Override
            public synchronized CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
                // Nothing pending: this is a round's first batch (a round keeps several at the store).
                String what = previous.isDone() ? "first renewal" : "renewal";
                return inTurn(STEP_MILLIS / 3, what, () -> super.renew(leases)).whenComplete((answer, error) -> {
                    if (what.startsWith("first") && holding.get()) {
                        roundUnderWay.countDown();
                    }
                });
            }

            @Override
            public synchronized CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
                return inTurn(0, "attempt " + request.name(), () -> super.attempt(request, waiting));
            }

            @Override
            public synchronized CompletionStage<ReleaseResult> release(Lease lease) {
                return inTurn(0, "release " + lease.request().name(), () -> super.release(lease));
            }

            private <T> CompletableFuture<T> inTurn(long millis, String what, Supplier<CompletionStage<T>> call) {
                CompletableFuture<T> answer = previous.handle((ignored, error) -> null)
                        .thenCompose(ready -> CompletableFuture.supplyAsync(() -> null,
                                CompletableFuture.delayedExecutor(millis, TimeUnit.MILLISECONDS)))
                        .thenCompose(ready -> {
                            served.add(what);
                            return call.get().toCompletableFuture();
                        });
                previous = answer;
                return answer;
            }
        };
        try (StoreLockService service = new StoreLockService(pipelined,
                LockConfig.defaults().withLeaseTime(Duration.ofSeconds(6)), LockListener.NONE)) {
            service.start();
            List<LockHandle> held = new ArrayList<>();
            for (int i = 0; i < StoreCalls.RENEWAL_BATCH * batches; i++) {
                held.add(service.lock("entity:" + i));
            }
            holding.set(true);
            assertThat(roundUnderWay.await(20, TimeUnit.SECONDS)).as("a renewal round began").isTrue();
            service.lock("probe").unlock(); // sent while the round's first batch has just been answered
            await().atMost(Duration.ofSeconds(20)).until(() -> renewalsAfter(served, "attempt probe") > 0);
            List<String> after;
            synchronized (served) {
                after = List.copyOf(served.subList(served.indexOf("attempt probe") + 1, served.size()));
            }
            assertThat(after.stream().filter(what -> what.endsWith("renewal")).findFirst())
                    .as("what the store served after the probe's attempt: %s", after)
                    .contains("renewal"); // a batch of the same round, not the next round's first
            assertThat(held).allMatch(LockHandle::isHeld);
            held.forEach(LockHandle::unlock);
        }
    }

    private static long renewalsAfter(List<String> served, String call) {
        synchronized (served) {
            int at = served.indexOf(call);
            return at < 0 ? 0 : served.subList(at, served.size()).stream().filter(what -> what.endsWith("renewal"))
                    .count();
        }
    }

    /**
     * A store that stops answering gets no more of the round once its batches time out: the round ends with the
     * batches it had sent, and the rest count as failed without being sent (they would only pile up there).
     */
    @Test
    void aRoundThatTimesOutSendsNoMoreBatches() {
        int batches = StoreCalls.RENEWALS_IN_FLIGHT + 2;
        List<String> firstNames = Collections.synchronizedList(new ArrayList<>());
        LockStore silent = new ForwardingLockStore(new InMemoryLockStore().connect()) {

            @Override
            public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
                firstNames.add(leases.get(0).request().name());
                return new CompletableFuture<>(); // never answers
            }
        };
        LockConfig config = LockConfig.defaults().withLeaseTime(Duration.ofSeconds(3))
                .withCommandTimeout(Duration.ofMillis(200));
        try (StoreLockService service = new StoreLockService(silent, config, LockListener.NONE)) {
            service.start();
            for (int i = 0; i < StoreCalls.RENEWAL_BATCH * batches; i++) {
                service.lock("entity:" + i);
            }
            await().atMost(Duration.ofSeconds(20)).until(() -> rounds(firstNames) >= 2);
            List<String> calls = List.copyOf(firstNames); System.err.println("CALLS " + calls);
            assertThat((long) calls.size()).as("renewal calls in %d rounds", rounds(calls))
                    .isLessThanOrEqualTo(StoreCalls.RENEWALS_IN_FLIGHT * rounds(calls));
        }
    }

    /** @return the rounds begun: each round's first batch starts with the same lease */
    private static long rounds(List<String> firstNames) {
        synchronized (firstNames) {
            return firstNames.isEmpty() ? 0 : firstNames.stream().filter(firstNames.get(0)::equals).count();
        }
    }
}
