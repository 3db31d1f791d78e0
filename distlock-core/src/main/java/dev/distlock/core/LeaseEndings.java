package dev.distlock.core;

import java.util.function.BiConsumer;
import java.util.function.Consumer;

import dev.distlock.LeaseLostException;
import dev.distlock.LockUnavailableException;
import dev.distlock.OnLeaseLost;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.ReleaseResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The three ways a lease ends — released by its holder, found lost, or a fixed lease running out — each run once
 * per lease: the local queue is freed, the held-lock registry and the listeners are told, and the caller sees what
 * {@code distlock.on-lease-lost} says.
 */
final class LeaseEndings {

    private static final Logger log = LoggerFactory.getLogger(StoreLockService.class);

    private final StoreCalls store;

    private final OnLeaseLost onLeaseLost;

    private final LockListener listener;

    private final HeldLeases held;

    private final Consumer<LeaseHandle> stopRenewing;

    private final LocalHandOff handOff;

    /** Schedules a release for when a handle's hold-at-least time is over. */
    private final BiConsumer<LeaseHandle, Long> releaseLater;

    LeaseEndings(StoreCalls store, OnLeaseLost onLeaseLost, LockListener listener, HeldLeases held,
            Consumer<LeaseHandle> stopRenewing, LocalHandOff handOff, BiConsumer<LeaseHandle, Long> releaseLater) {
        this.store = store;
        this.onLeaseLost = onLeaseLost;
        this.listener = listener;
        this.held = held;
        this.stopRenewing = stopRenewing;
        this.handOff = handOff;
        this.releaseLater = releaseLater;
    }

    /**
     * Releases the lock in the store; called once, when the last hold of the handle is released, and once more
     * when an unlock within the hold-at-least time left it held.
     */
    void release(LeaseHandle handle) {
        // A hand-over the store has yet to confirm is released without waiting for the answer: to the store (which
        // releases it by its waiter's token too), or to a local thread, which takes its confirmation over.
        if (handle.unconfirmed()) {
            leaseLost(handle); // told here too: the confirmation's own callback may not have run yet
        }
        long holdLeft = handle.takeHoldLeftNanos(System.nanoTime());
        if (holdLeft > 0 && handle.isLockHeld()) {
            holdAfterUnlock(handle, holdLeft);
            return;
        }
        LeaseHandle.State previous = handle.markReleased();
        if (previous == LeaseHandle.State.RELEASED) {
            return;
        }
        stopRenewing.accept(handle);
        if (previous == LeaseHandle.State.HELD && handOff.offer(handle)) {
            // The next thread of this JVM takes the lease over: the hold ends here, the store lease goes on.
            handle.releaseLocal();
            held.remove(handle);
            log.debug("Lock '{}' (fencing token {}) handed to the next local thread", handle.name(),
                    handle.fencingToken());
            listener.released(handle, ReleaseResult.RELEASED);
            return;
        }
        ReleaseResult result;
        try {
            result = store.release(handle);
        }
        catch (LockUnavailableException ex) {
            result = ReleaseResult.ERROR;
            log.warn("Release of lock '{}' (fencing token {}) not confirmed by the store; its lease will expire: {}",
                    handle.name(), handle.fencingToken(), ex.getMessage());
        }
        finally {
            handle.releaseLocal();
            held.remove(handle);
        }
        if (result == ReleaseResult.EXPIRED && previous != LeaseHandle.State.LOST) {
            log.warn("Lock '{}' (fencing token {}) was released after its lease had expired: another holder may "
                    + "have run concurrently; use a longer lease or the watchdog", handle.name(),
                    handle.fencingToken());
        }
        else {
            log.debug("Lock '{}' (fencing token {}) released: {}", handle.name(), handle.fencingToken(),
                    result.tag());
        }
        listener.released(handle, result);
        if (previous == LeaseHandle.State.LOST && onLeaseLost == OnLeaseLost.THROW) {
            throw new LeaseLostException("The lease of lock '" + handle.name() + "' (fencing token "
                    + handle.fencingToken() + ") was lost while it was held; mutual exclusion was not guaranteed");
        }
    }

    /**
     * Hold at least: the work is done, but the lock stays held, unrenewed, until the time is up. It is no longer
     * counted as held work (a graceful shutdown does not wait for it, and does not release it: the lease, at least
     * as long as the hold, ends it), and no local thread takes it over meanwhile. A fixed lease that ends no
     * earlier than the hold simply runs out.
     */
    private void holdAfterUnlock(LeaseHandle handle, long holdLeftNanos) {
        stopRenewing.accept(handle);
        held.remove(handle);
        log.debug("Lock '{}' (fencing token {}) unlocked; held {} ms more (hold at least)", handle.name(),
                handle.fencingToken(), holdLeftNanos / 1_000_000);
        boolean fixedLeaseEndsFirst = !handle.request().watchdog()
                && handle.leaseDeadlineNanos() - (System.nanoTime() + holdLeftNanos) <= 0;
        if (!fixedLeaseEndsFirst) {
            releaseLater.accept(handle, holdLeftNanos);
        }
    }

    /** The lease was found lost: the handle is no longer held and the next local waiter may go. */
    void leaseLost(LeaseHandle handle) {
        if (handle.markLost()) {
            stopRenewing.accept(handle);
            handle.releaseLocal();
            held.remove(handle);
            log.warn("Lease of lock '{}' (fencing token {}) lost while held; another node may take it now",
                    handle.name(), handle.fencingToken());
            listener.leaseLost(handle);
            handle.lossFound();
        }
    }

    /**
     * A fixed lease ran out before unlock: free the local queue and tell the listeners (a lock taken "for at least
     * this long" is often never unlocked); an unlock later still reports the expiry.
     */
    void expired(LeaseHandle handle) {
        if (handle.markExpired()) {
            handle.releaseLocal();
            held.remove(handle);
            listener.expired(handle);
            if (!store.store().leasesExpire()) {
                releaseToStore(handle); // a session-bound lease does not end by itself
            }
        }
    }

    /**
     * Releases a lease in the store without telling anyone: a session-bound lease that ran out, or one a local
     * hand-off left and nobody took (or could use).
     */
    void releaseToStore(LeaseHandle handle) {
        try {
            store.release(handle);
        }
        catch (RuntimeException ex) {
            log.debug("Could not end the lease of lock '{}'", handle.name(), ex);
        }
    }


}
