package dev.distlock.redis;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The answers of the Redlock masters to one call: how many granted (or released), how many failed, and the
 * highest fencing token among the grants.
 */
final class RedlockVotes {

    int granted;

    int failed;

    long highestToken;

    /**
     * Collects the answers until the outcome is decided — {@code enough} positive answers, or so many others that
     * {@code enough} is out of reach — or the deadline: a frozen or dead master must not slow down every call.
     * Answers still missing count as failed.
     */
    static RedlockVotes collect(List<CompletableFuture<Object>> replies, long deadline, int enough) {
        RedlockVotes votes = new RedlockVotes();
        int refused = 0;
        List<CompletableFuture<Object>> pending = new ArrayList<>(replies);
        while (!pending.isEmpty() && votes.granted < enough && votes.failed + refused <= replies.size() - enough) {
            try {
                CompletableFuture.anyOf(pending.toArray(CompletableFuture[]::new))
                        .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            }
            catch (ExecutionException ex) {
                // counted below with its reply
            }
            catch (TimeoutException ex) {
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
                    refused++;
                }
            }
        }
        votes.failed += pending.size();
        return votes;
    }
}
