package dev.distlock.quorum;

import dev.distlock.spi.Waiting;
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
 * runs on quorums too (distlock-test-support's {@code in-memory-quorum} fixture, distlock-jdbc's
 * {@code jdbc-quorum}); these tests pin down what only a quorum does: votes, minorities down,
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
        Attempt first = answer(store.attempt(request("stock:1", "one"), Waiting.LAST_TRY));
        Attempt second = answer(store.attempt(request("stock:1", "two"), Waiting.LAST_TRY));
        assertThat(first).isInstanceOf(Attempt.Granted.class);
        assertThat(second).isInstanceOf(Attempt.Busy.class);
        assertThat(a.isLocked("stock:1")).isTrue();
        assertThat(b.isLocked("stock:1")).isTrue();
    }

    @Test
    void aMajorityDownFailsClosedSayingHowManyAnswered() {
        QuorumLockStore store = quorumOf(a, b, c);
        b.makeUnavailable();
        c.makeUnavailable();
        assertThat(store.attempt(request("stock:2", "one"), Waiting.LAST_TRY).toCompletableFuture())
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
        assertThat(store.attempt(request("stock:3", "one"), Waiting.LAST_TRY).toCompletableFuture())
                .failsWithin(ANSWER_BOUND).withThrowableOfType(ExecutionException.class)
                .withCauseInstanceOf(LockUnavailableException.class);
        assertThat(Duration.ofNanos(System.nanoTime() - started))
                .isLessThan(COMMAND_TIMEOUT.plus(store.traits().answerAllowance()).plusMillis(500));
    }

    /**
     * A request that won votes but no majority (a split: the undos may leave the lock free) tries again in under 20 ms;
     * one that won none (the lock is held, and a node that tells of releases wakes it) after 20 to 120 ms.
     */
    @Test
    void aRequestThatSplitTheVotesTriesAgainSoonerThanOneThatWonNone() throws Exception {
        QuorumLockStore store = quorumOf(a, b, c);
        assertThat((answer(b.attempt(request("stock:9", "on-b"), Waiting.LAST_TRY)) instanceof Attempt.Granted))
                .isTrue();
        assertThat((answer(c.attempt(request("stock:9", "on-c"), Waiting.LAST_TRY)) instanceof Attempt.Granted))
                .isTrue();
        Attempt split = answer(store.attempt(request("stock:9", "third"), Waiting.LAST_TRY));
        assertThat(split).isInstanceOf(Attempt.Busy.class);
        assertThat(((Attempt.Busy) split).retryAfter().toMillis()).as("won A, no majority").isBetween(1L, 19L);

        assertThat(answer(store.attempt(request("stock:10", "holder"), Waiting.LAST_TRY))).isInstanceOf(
                Attempt.Granted.class);
        Attempt refused = answer(store.attempt(request("stock:10", "other"), Waiting.LAST_TRY));
        assertThat(refused).isInstanceOf(Attempt.Busy.class);
        assertThat(((Attempt.Busy) refused).retryAfter().toMillis()).as("held: no vote won").isBetween(20L, 120L);
    }

    @Test
    void splitVotesAnswerBusyUndoTheMinorityGrantAndLaterSucceed() throws Exception {
        QuorumLockStore store = quorumOf(a, b, c);
        LockRequest onA = request("stock:4", "holder-a");
        LockRequest onB = request("stock:4", "holder-b");
        assertThat((answer(a.attempt(onA, Waiting.LAST_TRY)) instanceof Attempt.Granted)).isTrue();
        assertThat((answer(b.attempt(onB, Waiting.LAST_TRY)) instanceof Attempt.Granted)).isTrue();

        Attempt split = answer(store.attempt(request("stock:4", "third"), Waiting.LAST_TRY));
        assertThat(split).isInstanceOf(Attempt.Busy.class);
        assertThat(((Attempt.Busy) split).retryAfter().toMillis()).as("no vote won").isBetween(20L, 120L);
        await().atMost(ANSWER_BOUND).until(() -> !c.isLocked("stock:4")); // C's grant undone

        answer(b.cancel(onB));
        assertThat((answer(store.attempt(request("stock:4", "third"), Waiting.LAST_TRY)) instanceof Attempt.Granted)).isTrue();
    }

    @Test
    void aGrantThatComesAfterTheVoteIsUndoneAfterIt() throws Exception {
        LockStore lateC = new ForwardingLockStore(c) {
            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
                return releaseLateAttempts.thenCompose(go -> super.attempt(request, waiting));
            }
        };
        QuorumLockStore store = quorumOf(a, b, lateC);
        assertThat((answer(a.attempt(request("stock:5", "holder-a"), Waiting.LAST_TRY)) instanceof Attempt.Granted)).isTrue();
        assertThat((answer(b.attempt(request("stock:5", "holder-b"), Waiting.LAST_TRY)) instanceof Attempt.Granted)).isTrue();

        // Two nodes said no: the vote is decided before C answers.
        assertThat((answer(store.attempt(request("stock:5", "third"), Waiting.LAST_TRY)) instanceof Attempt.Granted)).isFalse();
        releaseLateAttempts.complete(null);
        // C grants now, and the undo that was chained to C's answer frees it.
        await().atMost(ANSWER_BOUND).until(() -> !c.isLocked("stock:5"));
    }

    @Test
    void aForcedReleaseCountsALockHeldOnAMajorityOnlyAndClearsAMinorityGrantToo() throws Exception {
        // C first: in-memory nodes answer at once, in order, so C's yes is counted before the others' no.
        QuorumLockStore store = quorumOf(c, a, b);
        // A grant left on one node (a late grant whose undo has not come yet): no lock of the quorum.
        assertThat((answer(c.attempt(request("stock:8", "straggler"), Waiting.LAST_TRY)) instanceof Attempt.Granted)).isTrue();
        assertThat(answer(store.forceRelease("stock:8"))).as("a lock held on one node of three").isFalse();
        assertThat(c.isLocked("stock:8")).as("cleared all the same").isFalse();

        assertThat((answer(store.attempt(request("stock:8", "holder"), Waiting.LAST_TRY)) instanceof Attempt.Granted)).isTrue();
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
            Attempt granted = answer(store.attempt(request, Waiting.LAST_TRY));
            assertThat(granted).isInstanceOf(Attempt.Granted.class);
            assertThat(((Attempt.Granted) granted).fencingToken()).isGreaterThan(previous);
            previous = ((Attempt.Granted) granted).fencingToken();
            assertThat(answer(store.release(new Granted(request, previous)))).isEqualTo(ReleaseResult.RELEASED);
            down.makeAvailable();
        }
    }

    @Test
    void theHolderAskingAgainGetsTheSameTokenWhicheverMajorityAnswers() throws Exception {
        // C's tokens run ahead of A's and B's, as independent nodes' tokens do.
        for (int i = 0; i < 5; i++) {
            LockRequest earlier = request("stock:7", "earlier-" + i);
            assertThat((answer(c.attempt(earlier, Waiting.LAST_TRY)) instanceof Attempt.Granted)).isTrue();
            answer(c.cancel(earlier));
        }
        AtomicReference<CompletableFuture<@Nullable Void>> gateA = new AtomicReference<>(
                CompletableFuture.completedFuture(null));
        LockStore lateA = new ForwardingLockStore(a) {
            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
                return gateA.get().thenCompose(go -> super.attempt(request, waiting));
            }
        };
        LockStore lateC = new ForwardingLockStore(c) {
            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
                return releaseLateAttempts.thenCompose(go -> super.attempt(request, waiting));
            }
        };
        QuorumLockStore store = quorumOf(lateA, b, lateC);
        LockRequest request = request("stock:7", "holder");
        // First A and B decide (C is late); asked again, B and C decide (A is late): their highest tokens differ.
        Attempt first = answer(store.attempt(request, Waiting.LAST_TRY));
        releaseLateAttempts.complete(null);
        await().atMost(ANSWER_BOUND).until(() -> c.isLocked("stock:7"));
        gateA.set(new CompletableFuture<>());
        Attempt again;
        try {
            again = answer(store.attempt(request, Waiting.LAST_TRY));
        }
        finally {
            gateA.get().complete(null);
        }
        assertThat(first).isInstanceOf(Attempt.Granted.class);
        assertThat(again).isInstanceOf(Attempt.Granted.class);
        assertThat(((Attempt.Granted) again).fencingToken()).as("the same holder's token").isEqualTo(((Attempt.Granted) first).fencingToken());
        // Released, the next grant carries the nodes' new tokens.
        assertThat(answer(store.release(new Granted(request, ((Attempt.Granted) first).fencingToken()))))
                .isEqualTo(ReleaseResult.RELEASED);
        assertThat(((Attempt.Granted) answer(store.attempt(request("stock:7", "next"), Waiting.LAST_TRY))).fencingToken())
                .isGreaterThan(((Attempt.Granted) first).fencingToken());
    }

    private static LockStore silent(LockStore node) {
        return new ForwardingLockStore(node) {
            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
                return new CompletableFuture<>(); // frozen: never answers
            }
        };
    }

    private record Granted(LockRequest request, long fencingToken) implements Lease {
    }
}
