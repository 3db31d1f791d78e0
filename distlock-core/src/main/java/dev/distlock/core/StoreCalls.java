package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Supplier;

import dev.distlock.LockException;
import dev.distlock.LockInfo;
import dev.distlock.LockUnavailableException;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.HandsOver;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.StoreTraits;
import dev.distlock.spi.Waiting;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.StoreHealth;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The engine's side of the store boundary, written once for every store: each answer of the {@link LockStore} is
 * waited for at most {@code distlock.command-timeout}, and a late or failed answer becomes a
 * {@link LockUnavailableException} (fail closed). An attempt whose answer the caller did not take is undone with
 * {@link LockStore#cancel}, chained on the attempt's own stage, so the undo goes out strictly after the attempt and
 * a grant that arrives late never holds the lock for a whole lease. Renewals go to the store in batches of at most
 * {@link #RENEWAL_BATCH}, at most {@link #RENEWALS_IN_FLIGHT} at the store at once, and their results are mapped back
 * one per lease.
 */
final class StoreCalls {

    /** The most leases per renewal call; larger sets are sent as several calls at once. */
    static final int RENEWAL_BATCH = 500;

    /**
     * The most batch calls of a renewal round at the store at once; the next is sent when one answers. One served and
     * one queued keep the store busy; each more adds a batch's time to the wait of a lock call behind them (on Redis
     * some 1.5 ms for 500 leases: workload L's held p99 was 5.2 ms with two, 7.6 to 7.9 ms with four).
     */
    static final int RENEWALS_IN_FLIGHT = 2;

    private static final Logger log = LoggerFactory.getLogger(StoreCalls.class);

    private final LockStore store;

    private final long timeoutNanos;

    private final long attemptTimeoutNanos;

    /** What a late answer's message says it was waited for: the command timeout; for an attempt, also the allowance. */
    private final String timeoutBound;
    private final String attemptBound;

    private final StoreTraits traits;

    StoreCalls(LockStore store, Duration commandTimeout) {
        this.store = store;
        this.traits = store.traits(); // read once: the engine never asks the store what it is again
        this.timeoutNanos = commandTimeout.toNanos();
        this.attemptTimeoutNanos = timeoutNanos + traits.answerAllowance().toNanos();
        this.timeoutBound = "distlock.command-timeout (" + commandTimeout.toMillis() + " ms)";
        this.attemptBound = traits.answerAllowance().isZero() ? timeoutBound : TimeUnit.NANOSECONDS.toMillis(
                attemptTimeoutNanos) + " ms, " + timeoutBound + " plus the store's answer allowance";
    }

    /** @return the store's traits, as read when the engine was built */
    StoreTraits traits() {
        return traits;
    }

    /**
     * @return the store's answer
     * @throws LockUnavailableException when it did not answer in time or failed; whatever the attempt may still
     *         take is undone after it
     */
    Attempt attempt(LockRequest request, Waiting waiting) {
        CompletableFuture<Attempt> stage = send(() -> store.attempt(request, waiting));
        try {
            return await(stage, attemptTimeoutNanos, attemptBound, "acquire lock '" + request.name() + "'");
        }
        catch (LockUnavailableException ex) {
            // The attempt may still run (or have run): undo it strictly after it.
            stage.whenComplete((attempt, error) -> cancel(request));
            throw ex.lockNames().isEmpty() ? new LockUnavailableException(String.valueOf(ex.getMessage()),
                    List.of(request.name()), null, null, ex.getCause()) : ex;
        }
    }

    /**
     * Confirms a hand-over ({@link HandsOver#confirm}; only a store that hands over tells of one): sent now and waited
     * for by nobody. No timer bounds it (one per confirmation would wake a scheduler thread twice a hand-over): a
     * hand-over that is not confirmed before it ends is lost by its deadline, which the watchdog watches.
     *
     * @param fencingToken the token the hand-over gave the request
     * @return completes, never exceptionally, with true when the store granted the request the lock with that token;
     *         with false otherwise, and then whatever the call may have taken is undone
     */
    CompletableFuture<Boolean> confirm(LockRequest request, long fencingToken) {
        return send(() -> ((HandsOver) store).confirm(request)).handle((attempt, error) -> {
            if (error == null && attempt instanceof Attempt.Granted granted && granted.fencingToken() == fencingToken) {
                return true;
            }
            log.debug("The hand-over of lock '{}' (fencing token {}) was not confirmed: {}", request.name(),
                    fencingToken, error != null ? error.toString() : attempt);
            cancel(request);
            return false;
        });
    }

    /**
     * Sends an attempt or a confirmation. A store that throws instead of answering (a closed client, a bug) answers
     * with that failure: the caller gets a {@code LockUnavailableException} naming the store, as for a failed answer.
     */
    private static CompletableFuture<Attempt> send(Supplier<CompletionStage<Attempt>> call) {
        try {
            return call.get().toCompletableFuture();
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /** Undoes whatever the request holds or registered; never throws. */
    void cancel(LockRequest request) {
        try {
            store.cancel(request).whenComplete((done, error) -> {
                if (error != null) {
                    undoFailed(request, error);
                }
            });
        }
        catch (RuntimeException ex) {
            undoFailed(request, ex);
        }
    }

    private static void undoFailed(LockRequest request, Throwable error) {
        log.debug("Could not undo a request for lock '{}' (its lease or wait expires on its own)", request.name(),
                error);
    }

    /** @throws LockUnavailableException when the store did not answer in time or failed */
    ReleaseResult release(Lease lease) {
        return await(store.release(lease), timeoutNanos, timeoutBound, "release lock '" + lease.request().name() + "'");
    }

    /**
     * A release nobody waits for (an expiry, the end of a hold-at-least time, a lease a local hand-off left): sent
     * now, bounded by the command timeout, never blocking the calling thread (the engine's scheduler).
     *
     * @return completes, never exceptionally, with the store's answer, or {@link ReleaseResult#ERROR}
     */
    CompletableFuture<ReleaseResult> releaseLater(Lease lease) {
        CompletableFuture<ReleaseResult> sent;
        try {
            sent = store.release(lease).toCompletableFuture();
        }
        catch (RuntimeException ex) {
            sent = CompletableFuture.failedFuture(ex);
        }
        return sent.copy().orTimeout(timeoutNanos, TimeUnit.NANOSECONDS).handle((result, error) -> {
            if (error == null) {
                return result;
            }
            log.debug("Release of lock '{}' not confirmed by the store; its lease will expire: {}",
                    lease.request().name(), error.toString());
            return ReleaseResult.ERROR;
        });
    }

    /** @throws LockUnavailableException when the store did not answer in time or failed */
    boolean forceRelease(String name) {
        return await(store.forceRelease(name), timeoutNanos, timeoutBound, "force the release of lock '" + name + "'");
    }

    /**
     * @throws LockUnavailableException when the store did not answer in time or failed: never "free" then
     * @throws IllegalArgumentException when the name is empty
     */
    Optional<LockInfo> describe(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("Lock name must not be empty");
        }
        return await(store.describe(name), timeoutNanos, timeoutBound, "describe lock '" + name + "'");
    }

    /**
     * @return one result per lease, in order; {@link RenewalResult#ERROR} for every lease of a batch the store did
     *         not answer in time (within the command timeout of the round's start or of the previous batch's
     *         answer, whichever is later), failed, or answered with the wrong number of results
     */
    List<RenewalResult> renew(List<? extends Lease> leases) {
        long deadline = System.nanoTime() + timeoutNanos;
        int batches = (leases.size() + RENEWAL_BATCH - 1) / RENEWAL_BATCH;
        List<CompletionStage<List<RenewalResult>>> sent = new ArrayList<>(batches);
        // A few batches at the store at once, the next sent when one answers: the store stays busy, and a lock call
        // on its connection waits behind a few batches, not behind the whole round (2,000 batches, seconds of Redis
        // time, at a million held locks).
        for (int i = 0; i < Math.min(batches, RENEWALS_IN_FLIGHT); i++) {
            sent.add(renewBatch(leases, i));
        }
        List<RenewalResult> results = new ArrayList<>(leases.size());
        for (int i = 0; i < batches; i++) {
            int size = Math.min(RENEWAL_BATCH, leases.size() - i * RENEWAL_BATCH);
            List<RenewalResult> answer;
            try {
                answer = await(sent.get(i), Math.max(0, deadline - System.nanoTime()), timeoutBound,
                        "renew " + size + " leases");
                // The store answers: the next batch, which it may serve only now (Redis works through pipelined
                // calls in turn), is bounded from this answer on. One timeout for the whole round would count the
                // tail of a long round as failed on a busy store that renews it all, and the deadline guard would
                // then report those leases lost. A store that stops answering still ends the round within one
                // timeout of its last answer.
                deadline = Math.max(deadline, System.nanoTime() + timeoutNanos);
                if (answer.size() != size) {
                    log.warn("{} answered {} renewals for {} leases; counted as not renewed", store, answer.size(),
                            size);
                    answer = Collections.nCopies(size, RenewalResult.ERROR);
                }
            }
            catch (LockUnavailableException ex) {
                log.debug("Lease renewal failed: {}", ex.getMessage());
                answer = Collections.nCopies(size, RenewalResult.ERROR);
            }
            results.addAll(answer);
            if (i + RENEWALS_IN_FLIGHT < batches) {
                // Past the deadline the store answers nothing in time: the rest of the round is not piled onto it.
                sent.add(deadline - System.nanoTime() > 0 ? renewBatch(leases, i + RENEWALS_IN_FLIGHT)
                        : CompletableFuture.failedFuture(new IllegalStateException("not sent: the round timed out")));
            }
        }
        return results;
    }

    private CompletionStage<List<RenewalResult>> renewBatch(List<? extends Lease> leases, int batch) {
        int from = batch * RENEWAL_BATCH;
        try {
            return store.renew(leases.subList(from, Math.min(leases.size(), from + RENEWAL_BATCH)));
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /** @return the store's health, or down when it did not answer within the timeout */
    StoreHealth health(Duration timeout) {
        try {
            return await(store.health(), timeout.toNanos(), timeout.toMillis() + " ms", "check its health");
        }
        catch (LockUnavailableException ex) {
            return new StoreHealth(false, Map.of("error", String.valueOf(ex.getMessage())));
        }
    }

    private <T> T await(CompletionStage<T> stage, long waitNanos, String bound, String what) {
        try {
            return stage.toCompletableFuture().get(waitNanos, TimeUnit.NANOSECONDS);
        }
        catch (TimeoutException ex) {
            throw new LockUnavailableException(store + " did not answer (" + what + ") within " + bound, ex);
        }
        catch (ExecutionException | CompletionException ex) {
            throw failed(ex.getCause() != null ? ex.getCause() : ex, what);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException("Interrupted while waiting for " + store + " to " + what, ex);
        }
    }

    /**
     * A store's own {@link LockException} (its message says what went wrong) and a request it refused keep their
     * type; anything else means the store could not answer.
     */
    private RuntimeException failed(Throwable cause, String what) {
        if (cause instanceof CompletionException && cause.getCause() != null) {
            cause = cause.getCause();
        }
        if (cause instanceof LockUnavailableException) {
            return new LockUnavailableException(String.valueOf(cause.getMessage()), cause);
        }
        if (cause instanceof LockException || cause instanceof IllegalArgumentException) {
            return (RuntimeException) cause;
        }
        return new LockUnavailableException(store + " failed to " + what + ": " + cause, cause);
    }
}
