package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.LockException;
import dev.distlock.LockUnavailableException;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.Waiting;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wait loop of one acquisition: queue behind this JVM's other threads that want the same name, then ask the
 * store until it grants the lock or the wait time is over. Between attempts the thread sleeps until the store
 * hands it the lock ({@link LocalQueues#released}), until the store's suggested retry time, or at most
 * {@link #MAX_RECHECK}, whichever comes first.
 */
final class StoreAcquirer {

    /** Bound on how long a waiter trusts notifications alone: one can be lost while the store reconnects. */
    static final Duration MAX_RECHECK = Duration.ofMillis(500);

    private static final long MAX_RECHECK_NANOS = MAX_RECHECK.toNanos();

    /** The refusal's clock is in whole ms (up to 1 ms early), plus a margin. */
    private static final long CLOCK_SLACK_MICROS = 2_000;

    private static final Logger log = LoggerFactory.getLogger(StoreAcquirer.class);

    private final LeaseLifecycle service;

    private final StoreCalls store;

    private final LocalQueues queues;

    private final LocalHandOff handOff;

    StoreAcquirer(LeaseLifecycle service, StoreCalls store, LocalQueues queues, LocalHandOff handOff) {
        this.service = service;
        this.store = store;
        this.queues = queues;
        this.handOff = handOff;
    }

    /**
     * @return the handle, or {@code null} when the deadline passed
     * @throws dev.distlock.LockUnavailableException when the store cannot answer
     * @throws LockException when interrupted
     */
    @Nullable LeaseHandle acquire(LockRequest request, long deadline) {
        LocalQueues.Entry entry = queues.join(request.name(), request.sharesName());
        long queuedAt = System.nanoTime();
        LeaseHandle handle = null;
        try {
            if (!entry.awaitTurn(deadline - System.nanoTime())) {
                return null;
            }
            try {
                if (!service.accepting()) {
                    // Queued behind a holder when the shutdown began: give up, and pass the failure down the queue.
                    StoreLease left = entry.takeLeftLease();
                    if (left != null) {
                        service.returnToStore(left);
                    }
                    throw StoreLockService.shuttingDown(request.name());
                }
                handle = handOff.take(service, entry, request, service::returnToStore);
                if (handle == null) {
                    LocalQueues.Failure failedAhead = entry.failedSince(queuedAt);
                    if (failedAhead != null) {
                        throw failedAhead(request, failedAhead);
                    }
                    try {
                        handle = compete(request, entry, deadline);
                    }
                    catch (LockUnavailableException ex) {
                        if (!Thread.currentThread().isInterrupted()) { // an interrupt is this thread's, not the store's
                            entry.failed(ex);
                        }
                        throw ex;
                    }
                }
            }
            finally {
                if (handle == null || request.sharesName()) {
                    // A reader (or a permit holder) keeps no local turn: the next one may go at once.
                    entry.passTurn();
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw interrupted(request);
        }
        finally {
            if (handle == null) {
                service.leftQueue(entry);
            }
        }
        return handle;
    }

    /**
     * The store failed the attempt of the thread ahead of this one in the queue while this one waited: this one fails
     * with it, without an attempt of its own (the store was asked about this name and did not answer; asking again
     * at once would mostly cost each queued thread one more {@code distlock.command-timeout}). Threads that queue
     * after the failure try the store themselves.
     */
    private static LockUnavailableException failedAhead(LockRequest request, LocalQueues.Failure failure) {
        return new LockUnavailableException("Lock '" + request.name() + "' not attempted: the attempt of the thread"
                + " ahead of this one in this instance's queue for it failed "
                + (System.nanoTime() - failure.atNanos()) / 1_000_000L + " ms ago, while this one waited ("
                + failure.cause().getMessage() + ")", List.of(request.name()), null, null, failure.cause());
    }

    private @Nullable LeaseHandle compete(LockRequest request, LocalQueues.Entry entry, long deadline) {
        entry.compete(request.ownerToken());
        try {
            boolean refused = false;
            while (true) {
                if (!service.accepting()) {
                    if (refused) {
                        store.cancel(request);
                    }
                    throw StoreLockService.shuttingDown(request.name());
                }
                long sent = System.nanoTime();
                Waiting waiting = Waiting.upTo(Duration.ofNanos(Math.max(0, deadline - sent)));
                Attempt attempt = store.attempt(request, waiting);
                if (attempt instanceof Attempt.Granted granted) {
                    StoreLease lease = StoreLease.granted(request, granted.fencingToken(), entry, sent,
                            store.traits().leasesExpire());
                    if (!lease.pastDeadline(System.nanoTime())) {
                        entry.startStreak();
                        return LeaseHandle.first(service, lease);
                    }
                    // The answer was taken after the lease it granted could have ended in the store (this JVM was
                    // paused, or the answer was slow within the command timeout): another node may hold the name by
                    // now, with a higher token. Not a lock: ask again while the wait lasts (fault campaign, PostgreSQL).
                    log.info("Lock '{}': the store's grant came {} ms after the request was sent, past the lease of"
                            + " {} ms; asking again", request.name(), (System.nanoTime() - sent) / 1_000_000L,
                            request.leaseTime().toMillis());
                    if (System.nanoTime() - deadline >= 0) {
                        store.cancel(request);
                        return null;
                    }
                    continue;
                }
                Attempt.Busy busy = (Attempt.Busy) attempt; // the only other kind (sealed)
                if (System.nanoTime() - deadline >= 0) {
                    store.cancel(request);
                    return null;
                }
                refused = true;
                awaitTurn(request, entry, deadline, busy.retryAfter().toMillis());
                LeaseHandle handed = startOnHandOver(request, entry, sent, busy.refusedAtMicros().orElse(0));
                if (handed != null) {
                    return handed;
                }
            }
        }
        finally {
            entry.stopCompeting();
        }
    }

    /**
     * The store handed the lock to this waiter with its token ({@link LocalQueues#handedOver}): the waiter starts at
     * once, and its confirmation (HandsOver#confirm), sent now, gets it the full lease. Taken only when it is safe to count
     * on the hand-over before that answer: an exclusive watchdog lease (a fixed lease, a reader or a permit holder
     * asks the store as ever), on a store whose tokens are its clock in µs; the hand-over made after this waiter's
     * last refusal (a refusal after a hand-over comes only once it ended, a whole window later: half of it is the
     * margin for comparing the two clock readings); and at least half of the window left for the confirmation to
     * come back, counted from the hand-over's earliest possible start here: the last refused attempt's sending plus
     * the store time from that refusal to the hand-over, less the clock margins ({@link ClockDrift#localNanosAtLeast},
     * and {@link #CLOCK_SLACK_MICROS} for the refusal's clock in whole ms), and never later than now. Both readings
     * are the store's clock, never the token: a token may be ahead of the clock of the master that serves it after
     * a failover (review 4, F6).
     *
     * @return the handle, or {@code null} to ask the store
     */
    private @Nullable LeaseHandle startOnHandOver(LockRequest request, LocalQueues.Entry entry,
            long refusedSentNanos, long refusedAtMicros) {
        LocalQueues.HandOver handOver = entry.takeHandOver(request.ownerToken());
        if (handOver == null || refusedAtMicros == 0 || !request.watchdog() || request.sharesName()
                || !store.traits().leasesExpire() || !store.traits().tokensFollowClock() || !service.accepting()
                || handOver.handedAtMicros() - (refusedAtMicros - handOver.windowMillis() * 500) <= 0) {
            return null;
        }
        Duration handedFor = Duration.ofMillis(handOver.windowMillis());
        long sinceRefusalMicros = handOver.handedAtMicros() - refusedAtMicros - CLOCK_SLACK_MICROS;
        long now = System.nanoTime();
        long handedAtNanos = refusedSentNanos
                + (sinceRefusalMicros > 0 ? ClockDrift.localNanosAtLeast(sinceRefusalMicros) : 0);
        if (handedAtNanos - now > 0) {
            handedAtNanos = now; // the hand-over was heard of now: it cannot have started later
        }
        if (ClockDrift.deadline(handedAtNanos, handedFor) - now < handedFor.toNanos() / 2) {
            return null;
        }
        entry.startStreak();
        CompletableFuture<Boolean> confirmation = store.confirm(request, handOver.fencingToken());
        return LeaseHandle.first(service, StoreLease.handedOver(request, handOver.fencingToken(), entry,
                handedAtNanos, handedFor, confirmation, now));
    }

    /**
     * Sleeps until it is worth trying again: the store handed the lock to this waiter, a store hand-over to another
     * waiter ended, the suggested retry time came, or the deadline (for one last attempt).
     */
    private void awaitTurn(LockRequest request, LocalQueues.Entry entry, long deadline, long retryAfterMillis) {
        long retryAt = System.nanoTime() + Math.min(retryAfterMillis * 1_000_000L, MAX_RECHECK_NANOS);
        while (true) {
            if (entry.shouldTryNow()) {
                break;
            }
            long now = System.nanoTime();
            long wakeAt = retryAt;
            long recheck = entry.recheckAtNanos();
            if (recheck != 0 && recheck - wakeAt < 0) {
                wakeAt = recheck;
            }
            if (deadline - wakeAt < 0) {
                wakeAt = deadline;
            }
            if (now - wakeAt >= 0) {
                break;
            }
            LockSupport.parkNanos(this, wakeAt - now);
            if (Thread.interrupted()) {
                store.cancel(request);
                Thread.currentThread().interrupt();
                throw interrupted(request);
            }
        }
        entry.clearWakeUp();
    }

    private static LockException interrupted(LockRequest request) {
        return new LockException("Interrupted while waiting for lock '" + request.name() + "'");
    }
}
