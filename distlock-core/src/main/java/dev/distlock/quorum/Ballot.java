package dev.distlock.quorum;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

import dev.distlock.spi.Attempt;
import dev.distlock.spi.ReleaseResult;
import org.jspecify.annotations.Nullable;

/**
 * The nodes' answers to one question (an attempt, a release), counted as they come, until the outcome is decided:
 * {@code enough} nodes said yes, so many did not that {@code enough} is out of reach, or every node answered. A
 * node's answer is waited for at most its own bound: a frozen or dead node is a failed vote then, and it cannot slow
 * down a vote that the others decided. Answers still missing when the outcome was decided earlier are
 * {@link Count#undecided() undecided}, not failed: a live node a little slower than the others to say no is not an
 * unreachable one. No thread waits: the count completes from the answers' stages and their time bounds.
 */
final class Ballot {

    /** How one node answered. */
    enum Vote {

        /** Granted, released. */
        YES,

        /** Refused: busy, or not the owner. */
        NO,

        /** An error, or no answer within its bound. */
        FAILED
    }

    /**
     * The outcome of a vote.
     *
     * @param yes how many nodes said yes
     * @param no how many said no
     * @param failed how many failed or did not answer within their bound
     * @param notAsked how many were not asked (they cannot say yes, but they did not fail)
     * @param undecided how many were not waited for, since the outcome was decided before they answered
     * @param highestToken the highest fencing token among the yes answers that carry one
     */
    record Count(int yes, int no, int failed, int notAsked, int undecided, long highestToken) {
    }

    /** One node's answer as counted: a vote, and the fencing token of a grant (else 0). */
    record Answer(Vote vote, long token) {

        static final Answer FAILED = new Answer(Vote.FAILED, 0);

        static Answer of(Vote vote) {
            return new Answer(vote, 0);
        }

        /** @return yes with the token for a grant, no for a busy answer */
        static Answer of(Attempt attempt) {
            return attempt instanceof Attempt.Granted granted ? new Answer(Vote.YES, granted.fencingToken())
                    : of(Vote.NO);
        }

        /** @return yes for a release, no for an ended lease, failed for an error */
        static Answer of(ReleaseResult result) {
            return switch (result) {
                case RELEASED -> of(Vote.YES);
                case EXPIRED -> of(Vote.NO);
                case ERROR -> FAILED;
            };
        }
    }

    private final int nodes;

    private final int enough;

    private final CompletableFuture<Count> decided = new CompletableFuture<>();

    // Guarded by this.
    private int yes;

    private int no;

    private int failed;

    private int notAsked;

    private long highestToken;

    /** Whether the outcome was decided: later answers are not counted. */
    private boolean closed;

    private Ballot(int nodes, int enough) {
        this.nodes = nodes;
        this.enough = enough;
    }

    /**
     * Counts the answers of one question.
     *
     * @param <T> the type of a node's answer
     * @param answers one per node; {@code null} for a node not asked this time
     * @param count how an answer votes
     * @param enough how many yes votes decide the question
     * @param boundNanos per node, how long its answer is waited for, from now
     * @return completes with the count once decided; never exceptionally
     */
    static <T> CompletableFuture<Count> count(List<? extends @Nullable CompletionStage<T>> answers,
            Function<T, Answer> count, int enough, long[] boundNanos) {
        Ballot ballot = new Ballot(answers.size(), enough);
        for (CompletionStage<T> answer : answers) {
            if (answer == null) {
                ballot.notAsked();
            }
        }
        for (int i = 0; i < answers.size(); i++) {
            CompletionStage<T> answer = answers.get(i);
            if (answer == null) {
                continue;
            }
            // A future of the vote's own: bounding it in time leaves the node's stage (and what is chained on it,
            // such as an undo) untouched.
            CompletableFuture<Answer> counted = new CompletableFuture<>();
            answer.whenComplete((value, error) -> counted.complete((error != null) ? Answer.FAILED
                    : vote(count, value)));
            counted.completeOnTimeout(Answer.FAILED, boundNanos[i], TimeUnit.NANOSECONDS)
                    .thenAccept(ballot::add);
        }
        return ballot.decided;
    }

    private static <T> Answer vote(Function<T, Answer> count, T value) {
        try {
            return count.apply(value);
        }
        catch (RuntimeException ex) {
            return Answer.FAILED; // an answer the vote cannot read (e.g. a renewal list of the wrong size)
        }
    }

    private void notAsked() {
        Count outcome;
        synchronized (this) {
            if (closed) {
                return;
            }
            notAsked++;
            outcome = outcomeIfDecided();
        }
        decide(outcome);
    }

    private void add(Answer answer) {
        Count outcome;
        synchronized (this) {
            if (closed) {
                return; // the outcome stands; this answer only ends its own node's call
            }
            switch (answer.vote()) {
                case YES -> {
                    yes++;
                    highestToken = Math.max(highestToken, answer.token());
                }
                case NO -> no++;
                case FAILED -> failed++;
            }
            outcome = outcomeIfDecided();
        }
        decide(outcome);
    }

    private @Nullable Count outcomeIfDecided() {
        int counted = yes + no + failed + notAsked;
        if (yes >= enough || no + failed + notAsked > nodes - enough || counted == nodes) {
            closed = true;
            return new Count(yes, no, failed, notAsked, nodes - counted, highestToken);
        }
        return null;
    }

    /** Completes outside the monitor: what depends on the outcome (undos, the caller) runs without holding it. */
    private void decide(@Nullable Count outcome) {
        if (outcome != null) {
            decided.complete(outcome);
        }
    }
}
