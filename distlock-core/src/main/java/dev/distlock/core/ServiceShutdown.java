package dev.distlock.core;

import java.time.Duration;
import java.util.List;

import dev.distlock.spi.LockStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link StoreLockService}'s graceful shutdown: stop taking new locks, tell the leaders, wait for locked work to
 * finish, then release what is still held and close the store. Every lease still held goes back to the store
 * before the store closes: a holder's through its release, one a local hand-off was passing on directly.
 */
final class ServiceShutdown {

    private static final Logger log = LoggerFactory.getLogger(StoreLockService.class);

    /** How long the shutdown waits for acquisitions still in flight once it released every lock. */
    private static final Duration ACQUISITIONS_GRACE = Duration.ofSeconds(5);

    private final LockStore store;

    private final HeldLeases held;

    private final LocalQueues queues;

    private final LocalHandOff handOff;

    private final LeaseScheduler scheduler;

    private final LeaseEndings endings;

    private volatile boolean accepting = true;

    private boolean closed;

    ServiceShutdown(LockStore store, HeldLeases held, LocalQueues queues, LocalHandOff handOff,
            LeaseScheduler scheduler, LeaseEndings endings) {
        this.store = store;
        this.held = held;
        this.queues = queues;
        this.handOff = handOff;
        this.scheduler = scheduler;
        this.endings = endings;
    }

    /** @return whether new acquisitions are taken: false from the start of the shutdown */
    boolean accepting() {
        return accepting;
    }

    /** @see StoreLockService#awaitIdle(Duration) */
    boolean awaitIdle(Duration timeout) {
        accepting = false;
        // A lease handed to a queued thread now might be taken after the last release of the shutdown: none any more.
        handOff.stop();
        // Threads waiting in the store give up now; those queued behind them follow one by one.
        queues.wakeAll();
        return held.awaitEmpty(timeout);
    }

    /**
     * @param grace how long running work may still take
     * @param candidates the leadership candidates of the service: told first, and their leases released while the
     *        store still answers; no candidate starts again
     * @see StoreLockService#shutdown(Duration)
     */
    void shutdown(Duration grace, List<Candidate> candidates) {
        accepting = false;
        candidates.forEach(Candidate::close);
        if (!awaitIdle(grace)) {
            log.warn("Locked work still running after {} ms of shutdown: releasing its locks", grace.toMillis());
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        scheduler.stop();
        releaseHeld();
        // Releasing frees the threads queued behind those locks, which fail; an attempt already sent to the store
        // ends within its command timeout. A lease granted meanwhile is released here, before the store closes.
        if (!held.awaitEmpty(ACQUISITIONS_GRACE)) {
            releaseHeld();
        }
        store.close();
    }

    private void releaseHeld() {
        for (StoreLease lease : held.snapshot()) {
            LeaseHandle holder = lease.holder();
            try {
                if (holder != null) {
                    endings.release(holder);
                }
                else {
                    endings.returnToStore(lease).join(); // bounded by the command timeout; before the store closes
                }
            }
            catch (RuntimeException ex) {
                log.debug("Release at shutdown failed for lock '{}'", lease.name(), ex);
            }
        }
    }
}
