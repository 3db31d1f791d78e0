package dev.distlock.redis;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * The answers of the Redlock masters to one call: how many granted (or released), how many refused (busy, not the
 * owner), how many failed (an error, or no answer by the deadline), how many were not waited for because the outcome
 * was already decided, and the highest fencing token among the grants.
 *
 * @param granted positive answers
 * @param refused negative answers
 * @param failed errors, and answers missing at the deadline
 * @param undecided answers not waited for: the outcome was decided before they came; neither a refusal nor a failure
 * @param highestToken the highest positive answer
 */
record RedlockVotes(int granted, int refused, int failed, int undecided, long highestToken) {

    /**
     * Collects the answers until the outcome is decided — {@code enough} positive answers, or so many others that
     * {@code enough} is out of reach — or the deadline: a frozen or dead master must not slow down every call.
     * Answers still missing at the deadline count as failed; answers not waited for because the outcome was decided
     * earlier count as undecided: a live master that is a little slower than the others to say "busy" is not an
     * unreachable one.
     *
     * @param replies per master asked, a positive number (a grant, with its token) or not
     * @param timeoutNanos the deadline, from now
     * @param enough how many positive answers decide
     * @param notAsked masters not asked this time: they cannot grant, so they bring {@code enough} out of reach
     *        sooner, but they are not failures
     * @return the votes once decided; never fails
     */
    static CompletableFuture<RedlockVotes> collect(List<CompletableFuture<Long>> replies, long timeoutNanos,
            int enough, int notAsked) {
        Count count = new Count(replies.size(), enough, notAsked);
        replies.forEach(reply -> reply.whenComplete(count::add));
        count.decideIfDone();
        return count.decided.completeOnTimeout(null, timeoutNanos, TimeUnit.NANOSECONDS)
                .thenApply(votes -> votes != null ? votes : count.timedOut());
    }

    /** The answers so far. */
    private static final class Count {

        final CompletableFuture<@Nullable RedlockVotes> decided = new CompletableFuture<>();

        private final int enough;

        private final int total;

        private final int notAsked;

        private int pending;

        private int granted;

        private int refused;

        private int failed;

        private long highestToken;

        Count(int asked, int enough, int notAsked) {
            this.pending = asked;
            this.total = asked + notAsked;
            this.enough = enough;
            this.notAsked = notAsked;
        }

        synchronized void add(@Nullable Long answer, @Nullable Throwable error) {
            if (decided.isDone()) {
                return;
            }
            pending--;
            if (error != null || answer == null) {
                failed++;
            }
            else if (answer > 0) {
                granted++;
                highestToken = Math.max(highestToken, answer);
            }
            else {
                refused++;
            }
            decideIfDone();
        }

        synchronized void decideIfDone() {
            if (pending == 0 || granted >= enough || failed + refused + notAsked > total - enough) {
                decided.complete(new RedlockVotes(granted, refused, failed, pending, highestToken));
            }
        }

        /** @return the votes at the deadline: every answer still missing failed */
        synchronized RedlockVotes timedOut() {
            RedlockVotes votes = new RedlockVotes(granted, refused, failed + pending, 0, highestToken);
            pending = 0; // later answers are not counted
            return votes;
        }
    }
}
