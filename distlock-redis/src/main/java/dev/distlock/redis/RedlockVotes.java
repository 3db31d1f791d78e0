package dev.distlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The answers of the Redlock masters to one call: how many granted (or released), how many refused (busy, not the
 * owner), how many failed (an error, or no answer by the deadline), how many were not waited for because the outcome
 * was already decided, and the highest fencing token among the grants.
 */
final class RedlockVotes {

    int granted;

    int refused;

    int failed;

    /** Answers not waited for: the outcome was decided before they came. Neither a refusal nor a failure. */
    int undecided;

    long highestToken;

    /**
     * Collects the answers until the outcome is decided — {@code enough} positive answers, or so many others that
     * {@code enough} is out of reach — or the deadline: a frozen or dead master must not slow down every call.
     * Answers still missing at the deadline count as failed; answers not waited for because the outcome was decided
     * earlier count as {@link #undecided}: a live master that is a little slower than the others to say "busy" is not
     * an unreachable one.
     */
    static RedlockVotes collect(List<CompletableFuture<Object>> replies, long deadline, int enough) {
        return collect(replies, deadline, enough, 0);
    }

    /**
     * As {@link #collect(List, long, int)}, when {@code notAsked} more masters were not asked this time: they cannot
     * grant, so they bring {@code enough} out of reach sooner, but they are not failures.
     */
    static RedlockVotes collect(List<CompletableFuture<Object>> replies, long deadline, int enough, int notAsked) {
        RedlockVotes votes = new RedlockVotes();
        int total = replies.size() + notAsked;
        List<CompletableFuture<Object>> pending = new ArrayList<>(replies);
        boolean timedOut = false;
        while (!pending.isEmpty() && votes.granted < enough
                && votes.failed + votes.refused + notAsked <= total - enough) {
            try {
                CompletableFuture.anyOf(pending.toArray(CompletableFuture[]::new))
                        .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            catch (ExecutionException ex) {
                // counted below with its reply
            }
            catch (TimeoutException ex) {
                timedOut = true;
                break;
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                break;
            }
            for (var it = pending.iterator(); it.hasNext();) {
                CompletableFuture<Object> reply = it.next();
                if (!reply.isDone()) {
                    continue;
                }
                it.remove();
                if (reply.isCompletedExceptionally()) {
                    votes.failed++;
                }
                else if ((Long) reply.join() > 0) {
                    votes.granted++;
                    votes.highestToken = Math.max(votes.highestToken, (Long) reply.join());
                }
                else {
                    votes.refused++;
                }
            }
        }
        // Still missing: failed when the deadline passed (or the wait was interrupted), else merely not waited for.
        if (timedOut || Thread.currentThread().isInterrupted()) {
            votes.failed += pending.size();
        }
        else {
            votes.undecided += pending.size();
        }
        return votes;
    }
}
