package dev.distlock.quorum;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LockType;
import dev.distlock.LockUnavailableException;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.StoreEvents;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The quorum logic on three in-memory nodes, called through the SPI as the engine calls it. The whole contract suite
 * runs on quorums too (distlock-test's {@code QuorumOfInMemoryStoresContractTests}, distlock-jdbc's
 * {@code QuorumOfJdbcStoresContractTests}); these tests pin down what only a quorum does: votes, minorities down,
 * split votes and the undo of a grant that came after the vote was decided.
 */
class QuorumLockStoreTests {

    private static final Duration COMMAND_TIMEOUT = Duration.ofMillis(500);

    private static final Duration ANSWER_BOUND = Duration.ofSeconds(5);

    private final InMemoryLockStore a = new InMemoryLockStore();

    private final InMemoryLockStore b = new InMemoryLockStore();

    private final InMemoryLockStore c = new InMemoryLockStore();

    /** Holds C's attempts back until completed: a node whose grant comes after the vote. */
    private final CompletableFuture<@Nullable Void> releaseLateAttempts = new CompletableFuture<>();

    private @Nullable QuorumLockStore quorum;

    @AfterEach
    void close() {
        releaseLateAttempts.complete(null);
        if (quorum != null) {
            quorum.close();
        }
    }

    private QuorumLockStore quorumOf(LockStore... nodes) {
        quorum = new QuorumLockStore(new QuorumConfig(List.of(nodes), COMMAND_TIMEOUT));
        quorum.start(StoreEvents.NONE);
        return quorum;
    }

    private static LockRequest request(String name, String owner) {
        return new LockRequest(name, LockType.REENTRANT, owner, Duration.ZERO, Duration.ofSeconds(30), false);
    }

    private static <T> T answer(CompletionStage<T> stage) throws Exception {
        return stage.toCompletableFuture().get(ANSWER_BOUND.toMillis(), TimeUnit.MILLISECONDS);
    }

    @Test
    void aMinorityDownStillGrantsAndStillExcludes() throws Exception {
        QuorumLockStore store = quorumOf(a, b, c);
        c.makeUnavailable();
        Attempt first = answer(store.attempt(request("stock:1", "one"), 0, false));
        Attempt second = answer(store.attempt(request("stock:1", "two"), 0, false));
        assertThat(first.isAcquired()).isTrue();
        assertThat(second.isAcquired()).isFalse();
        assertThat(a.isLocked("stock:1")).isTrue();
        assertThat(b.isLocked("stock:1")).isTrue();
    }

    @Test
    void aMajorityDownFailsClosedSayingHowManyAnswered() {
        QuorumLockStore store = quorumOf(a, b, c);
        b.makeUnavailable();
        c.makeUnavailable();
        assertThat(store.attempt(request("stock:2", "one"), 0, false).toCompletableFuture())
                .failsWithin(ANSWER_BOUND).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LockUnavailableException.class).withMessageContaining("Only 1 of 3 nodes");
        // The grant of the one node that answered is undone: nothing stays locked without a majority.
        await().atMost(ANSWER_BOUND).until(() -> !a.isLocked("stock:2"));
    }

    @Test
    void nodesThatNeverAnswerFailTheVoteWithinTheCommandTimeout() {
        LockStore silentB = silent(b);
        LockStore silentC = silent(c);
        QuorumLockStore store = quorumOf(a, silentB, silentC);
        long started = System.nanoTime();
        assertThat(store.attempt(request("stock:3", "one"), 0, false).toCompletableFuture())
                .failsWithin(ANSWER_BOUND).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LockUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .isLessThan(COMMAND_TIMEOUT.plus(store.answerAllowance()).plusMillis(500));
    }

    @Test
    void splitVotesAnswerBusyUndoTheMinorityGrantAndLaterSucceed() throws Exception {
        QuorumLockStore store = quorumOf(a, b, c);
        LockRequest onA = request("stock:4", "holder-a");
        LockRequest onB = request("stock:4", "holder-b");
        assertThat(answer(a.attempt(onA, 0, false)).isAcquired()).isTrue();
        assertThat(answer(b.attempt(onB, 0, false)).isAcquired()).isTrue();

        Attempt split = answer(store.attempt(request("stock:4", "third"), 0, false));
        assertThat(split.isAcquired()).isFalse();
        assertThat(split.retryAfterMillis()).isBetween(20L, 120L);
        await().atMost(ANSWER_BOUND).until(() -> !c.isLocked("stock:4")); // C's grant undone

        answer(b.cancel(onB));
        assertThat(answer(store.attempt(request("stock:4", "third"), 0, false)).isAcquired()).isTrue();
    }

    @Test
    void aGrantThatComesAfterTheVoteIsUndoneAfterIt() throws Exception {
        LockStore lateC = new ForwardingLockStore(c) {
            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, long remainingWaitMillis, boolean retry) {
                return releaseLateAttempts.thenCompose(go -> super.attempt(request, remainingWaitMillis, retry));
            }
        };
        QuorumLockStore store = quorumOf(a, b, lateC);
        assertThat(answer(a.attempt(request("stock:5", "holder-a"), 0, false)).isAcquired()).isTrue();
        assertThat(answer(b.attempt(request("stock:5", "holder-b"), 0, false)).isAcquired()).isTrue();

        // Two nodes said no: the vote is decided before C answers.
        assertThat(answer(store.attempt(request("stock:5", "third"), 0, false)).isAcquired()).isFalse();
        releaseLateAttempts.complete(null);
        // C grants now, and the undo that was chained to C's answer frees it.
        await().atMost(ANSWER_BOUND).until(() -> !c.isLocked("stock:5"));
    }

    @Test
    void aForcedReleaseCountsALockHeldOnAMajorityOnlyAndClearsAMinorityGrantToo() throws Exception {
        // C first: in-memory nodes answer at once, in order, so C's yes is counted before the others' no.
        QuorumLockStore store = quorumOf(c, a, b);
        // A grant left on one node (a late grant whose undo has not come yet): no lock of the quorum.
        assertThat(answer(c.attempt(request("stock:8", "straggler"), 0, false)).isAcquired()).isTrue();
        assertThat(answer(store.forceRelease("stock:8"))).as("a lock held on one node of three").isFalse();
        assertThat(c.isLocked("stock:8")).as("cleared all the same").isFalse();

        assertThat(answer(store.attempt(request("stock:8", "holder"), 0, false)).isAcquired()).isTrue();
        a.makeUnavailable();
        assertThat(answer(store.forceRelease("stock:8"))).as("held, one node of three down").isTrue();
        assertThat(b.isLocked("stock:8") || c.isLocked("stock:8")).isFalse();
    }

    @Test
    void fencingTokensIncreaseWhileADifferentNodeIsDownForEachGrant() throws Exception {
        QuorumLockStore store = quorumOf(a, b, c);
        long previous = 0;
        for (InMemoryLockStore down : List.of(a, b, c, a, b, c)) {
            down.makeUnavailable();
            LockRequest request = request("stock:6", "owner-" + previous);
            Attempt granted = answer(store.attempt(request, 0, false));
            assertThat(granted.isAcquired()).isTrue();
            assertThat(granted.fencingToken()).isGreaterThan(previous);
            previous = granted.fencingToken();
            assertThat(answer(store.release(new Granted(request, previous)))).isEqualTo(ReleaseResult.RELEASED);
            down.makeAvailable();
        }
    }

    @Test
    void theHolderAskingAgainGetsTheSameTokenWhicheverMajorityAnswers() throws Exception {
        // C's tokens run ahead of A's and B's, as independent nodes' tokens do.
        for (int i = 0; i < 5; i++) {
            LockRequest earlier = request("stock:7", "earlier-" + i);
            assertThat(answer(c.attempt(earlier, 0, false)).isAcquired()).isTrue();
            answer(c.cancel(earlier));
        }
        AtomicReference<CompletableFuture<@Nullable Void>> gateA = new AtomicReference<>(
                CompletableFuture.completedFuture(null));
        LockStore lateA = new ForwardingLockStore(a) {
            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, long remainingWaitMillis, boolean retry) {
                return gateA.get().thenCompose(go -> super.attempt(request, remainingWaitMillis, retry));
            }
        };
        LockStore lateC = new ForwardingLockStore(c) {
            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, long remainingWaitMillis, boolean retry) {
                return releaseLateAttempts.thenCompose(go -> super.attempt(request, remainingWaitMillis, retry));
            }
        };
        QuorumLockStore store = quorumOf(lateA, b, lateC);
        LockRequest request = request("stock:7", "holder");
        // First A and B decide (C is late); asked again, B and C decide (A is late): their highest tokens differ.
        Attempt first = answer(store.attempt(request, 0, false));
        releaseLateAttempts.complete(null);
        await().atMost(ANSWER_BOUND).until(() -> c.isLocked("stock:7"));
        gateA.set(new CompletableFuture<>());
        Attempt again;
        try {
            again = answer(store.attempt(request, 0, true));
        }
        finally {
            gateA.get().complete(null);
        }
        assertThat(first.isAcquired()).isTrue();
        assertThat(again.isAcquired()).isTrue();
        assertThat(again.fencingToken()).as("the same holder's token").isEqualTo(first.fencingToken());
        // Released, the next grant carries the nodes' new tokens.
        assertThat(answer(store.release(new Granted(request, first.fencingToken()))))
                .isEqualTo(ReleaseResult.RELEASED);
        assertThat(answer(store.attempt(request("stock:7", "next"), 0, false)).fencingToken())
                .isGreaterThan(first.fencingToken());
    }

    private static LockStore silent(LockStore node) {
        return new ForwardingLockStore(node) {
            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, long remainingWaitMillis, boolean retry) {
                return new CompletableFuture<>(); // frozen: never answers
            }
        };
    }

    private record Granted(LockRequest request, long fencingToken) implements Lease {
    }
}
