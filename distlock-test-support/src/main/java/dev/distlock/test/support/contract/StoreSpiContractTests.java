package dev.distlock.test.support.contract;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockType;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.StoreLockService;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.Waiting;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The store contract, the clauses of the SPI itself, asked of the store directly (not through the engine): the
 * same owner gets the same token, renewals answer per lease in order, a stranger's release leaves the holder,
 * cancel never throws, a grant whose answer came too late is undone.
 */
@StoreContract
class StoreSpiContractTests extends ContractNodes {

    // The clauses of the SPI itself, asked of the store directly (not through the engine).

    @Test
    void theSameOwnerAskingAgainGetsTheSameToken() {
        try (LockStore store = startedStore()) {
            LockRequest request = storeRequest("spi-same-owner", Duration.ofSeconds(30));
            Attempt first = answer(store.attempt(request, Waiting.LAST_TRY));
            Attempt again = answer(store.attempt(request, Waiting.LAST_TRY));
            assertThat(first).isInstanceOf(Attempt.Granted.class);
            assertThat((again instanceof Attempt.Granted)).as("the holder's repeated attempt").isTrue();
            assertThat(((Attempt.Granted) again).fencingToken()).isEqualTo(((Attempt.Granted) first).fencingToken());
            answer(store.release(new StoreLease(request, ((Attempt.Granted) first).fencingToken())));
        }
    }

    @Test
    void renewalsAnswerOnePerLeaseInOrder() {
        try (LockStore store = startedStore()) {
            LockRequest held = storeRequest("spi-renew-held", Duration.ofSeconds(30));
            LockRequest gone = storeRequest("spi-renew-gone", Duration.ofSeconds(30));
            LockRequest other = storeRequest("spi-renew-other", Duration.ofSeconds(30));
            long heldToken = ((Attempt.Granted) answer(store.attempt(held, Waiting.LAST_TRY))).fencingToken();
            long goneToken = ((Attempt.Granted) answer(store.attempt(gone, Waiting.LAST_TRY))).fencingToken();
            long otherToken = ((Attempt.Granted) answer(store.attempt(other, Waiting.LAST_TRY))).fencingToken();
            answer(store.release(new StoreLease(gone, goneToken)));
            List<RenewalResult> results = answer(store.renew(List.of(new StoreLease(held, heldToken),
                    new StoreLease(gone, goneToken), new StoreLease(other, otherToken))));
            assertThat(results).containsExactly(RenewalResult.RENEWED, RenewalResult.LOST, RenewalResult.RENEWED);
            answer(store.release(new StoreLease(held, heldToken)));
            answer(store.release(new StoreLease(other, otherToken)));
        }
    }

    @Test
    void aReleaseByAnotherOwnerIsExpiredAndLeavesTheHolder() {
        try (LockStore store = startedStore()) {
            LockRequest holder = storeRequest("spi-foreign", Duration.ofSeconds(30));
            LockRequest stranger = storeRequest("spi-foreign", Duration.ofSeconds(30));
            long token = ((Attempt.Granted) answer(store.attempt(holder, Waiting.LAST_TRY))).fencingToken();
            assertThat(answer(store.release(new StoreLease(stranger, token)))).isEqualTo(ReleaseResult.EXPIRED);
            assertThat((answer(store.attempt(stranger, Waiting.LAST_TRY)) instanceof Attempt.Granted)).as("still held").isFalse();
            answer(store.cancel(stranger));
            assertThat(answer(store.release(new StoreLease(holder, token)))).isEqualTo(ReleaseResult.RELEASED);
        }
    }

    @Test
    void cancelNeverThrowsAndFreesWhatTheRequestHeld() {
        try (LockStore store = startedStore()) {
            LockRequest never = storeRequest("spi-cancel-never", Duration.ofSeconds(30));
            assertThatCode(() -> answer(store.cancel(never))).as("a request the store never saw")
                    .doesNotThrowAnyException();
            LockRequest holder = storeRequest("spi-cancel-held", Duration.ofSeconds(30));
            assertThat((answer(store.attempt(holder, Waiting.LAST_TRY)) instanceof Attempt.Granted)).isTrue();
            answer(store.cancel(holder));
            LockRequest next = storeRequest("spi-cancel-held", Duration.ofSeconds(30));
            Attempt taken = answer(store.attempt(next, Waiting.LAST_TRY));
            assertThat((taken instanceof Attempt.Granted)).as("cancel undid the hold").isTrue();
            answer(store.release(new StoreLease(next, ((Attempt.Granted) taken).fencingToken())));
        }
        LockStore down = startedStore();
        stopStore();
        try {
            assertThatCode(() -> down.cancel(storeRequest("spi-cancel-down", Duration.ofSeconds(30))))
                    .as("cancel while the store is down").doesNotThrowAnyException();
        }
        finally {
            startStore();
            down.close();
        }
    }

    @Test
    void anAttemptWhoseAnswerCameTooLateIsUndone() throws Exception {
        CompletableFuture<Void> answerHeldBack = new CompletableFuture<>();
        LockStore slow = new ForwardingLockStore(newStore()) {
            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
                // The store grants at once; the answer reaches the engine only after it gave up waiting.
                return super.attempt(request, waiting).thenCombine(answerHeldBack,
                        (attempt, released) -> attempt);
            }
        };
        StoreLockService late = new StoreLockService(slow, config().withCommandTimeout(Duration.ofMillis(200)),
                history.listener());
        late.start();
        try {
            assertThatThrownBy(() -> late.tryLock("spi-late", NO_WAIT))
                    .isInstanceOf(LockUnavailableException.class).hasMessageContaining("distlock.command-timeout");
            answerHeldBack.complete(null);
            // Undone after the answer arrived, not at the end of the 30 s lease.
            Optional<LockHandle> next = node().tryLock("spi-late", LockOptions.defaults()
                    .withWaitTime(Duration.ofSeconds(10)));
            assertThat(next).as("the late grant was undone").isPresent();
            next.get().unlock();
        }
        finally {
            late.close();
        }
    }

    private static LockRequest storeRequest(String name, Duration lease) {
        return new LockRequest(name, LockType.REENTRANT, UUID.randomUUID().toString(), Duration.ZERO, lease, true);
    }

    private static <T> T answer(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        catch (ExecutionException | TimeoutException ex) {
            throw new IllegalStateException("The store did not answer", ex);
        }
    }

    /** A lease as the engine hands it to the store. */
    private record StoreLease(LockRequest request, long fencingToken) implements Lease {
    }
}
