package dev.distlock.quorum;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.RenewalResult;

/**
 * The nodes' answers to one batch of renewals, counted per lease: renewed when a majority renewed it, lost when so
 * many nodes no longer hold it that a majority cannot renew it any more, else an error (unknown). Complete once every
 * lease is decided or every node answered (or ran out of its bound), so that a frozen node does not turn every
 * renewal into an error.
 */
final class RenewalTally {

    private final int nodes;

    private final int quorum;

    private final int[] renewed;

    private final int[] lost;

    private final CompletableFuture<List<RenewalResult>> results = new CompletableFuture<>();

    // Guarded by this.
    private int answered;

    private boolean closed;

    private RenewalTally(int nodes, int quorum, int leases) {
        this.nodes = nodes;
        this.quorum = quorum;
        this.renewed = new int[leases];
        this.lost = new int[leases];
    }

    /**
     * Sends the renewals to every node and counts them; a grant renewed by a majority is remembered as renewed from
     * when the renewals were sent, a lost one is forgotten.
     *
     * @param nodes the quorum's nodes
     * @param leases the leases to renew
     * @param quorum the majority
     * @param timeoutNanos how long each node's answer is waited for
     * @param granted the quorum's granted tokens
     * @return one result per lease, in order
     */
    static CompletableFuture<List<RenewalResult>> renew(List<LockStore> nodes, List<? extends Lease> leases,
            int quorum, long timeoutNanos, GrantedTokens granted) {
        long sent = System.nanoTime();
        List<CompletionStage<List<RenewalResult>>> answers = new ArrayList<>(nodes.size());
        for (LockStore node : nodes) {
            answers.add(RequestOrder.send(() -> node.renew(leases)));
        }
        return count(answers, leases.size(), quorum, timeoutNanos).thenApply(results -> {
            for (int i = 0; i < results.size(); i++) {
                LockRequest request = leases.get(i).request();
                switch (results.get(i)) {
                    case RENEWED -> granted.renewed(request, sent);
                    case LOST -> granted.forget(request);
                    case ERROR -> {
                        // Unknown: the grant stays valid until its own time runs out.
                    }
                }
            }
            return results;
        });
    }

    /**
     * @param answers one per node
     * @param leases how many leases were sent to each node
     * @param quorum the majority
     * @param boundNanos how long each node's answer is waited for, from now
     * @return one result per lease, in order; never completes exceptionally
     */
    static CompletableFuture<List<RenewalResult>> count(List<CompletionStage<List<RenewalResult>>> answers,
            int leases, int quorum, long boundNanos) {
        RenewalTally tally = new RenewalTally(answers.size(), quorum, leases);
        List<RenewalResult> unknown = Collections.nCopies(leases, RenewalResult.ERROR);
        for (CompletionStage<List<RenewalResult>> answer : answers) {
            CompletableFuture<List<RenewalResult>> counted = new CompletableFuture<>();
            answer.whenComplete((results, error) -> counted.complete((error != null || results == null
                    || results.size() != leases) ? unknown : results));
            counted.completeOnTimeout(unknown, boundNanos, TimeUnit.NANOSECONDS).thenAccept(tally::add);
        }
        return tally.results;
    }

    private void add(List<RenewalResult> answer) {
        List<RenewalResult> outcome;
        synchronized (this) {
            if (closed) {
                return;
            }
            answered++;
            for (int i = 0; i < answer.size(); i++) {
                switch (answer.get(i)) {
                    case RENEWED -> renewed[i]++;
                    case LOST -> lost[i]++;
                    case ERROR -> {
                    }
                }
            }
            if (answered < nodes && !everyLeaseDecided()) {
                return;
            }
            closed = true;
            outcome = outcome();
        }
        results.complete(outcome);
    }

    private boolean everyLeaseDecided() {
        for (int i = 0; i < renewed.length; i++) {
            if (renewed[i] < quorum && lost[i] <= nodes - quorum) {
                return false;
            }
        }
        return true;
    }

    private List<RenewalResult> outcome() {
        List<RenewalResult> outcome = new ArrayList<>(renewed.length);
        for (int i = 0; i < renewed.length; i++) {
            if (renewed[i] >= quorum) {
                outcome.add(RenewalResult.RENEWED);
            }
            else if (lost[i] > nodes - quorum) {
                outcome.add(RenewalResult.LOST); // a majority can no longer renew it
            }
            else {
                outcome.add(RenewalResult.ERROR);
            }
        }
        return outcome;
    }
}
