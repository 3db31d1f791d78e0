package dev.distlock.core;

import java.util.concurrent.CompletableFuture;

import dev.distlock.LeaseLostException;
import dev.distlock.LockUnavailableException;
import dev.distlock.OnLeaseLost;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.ReleaseResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one path by which a {@link StoreLease} ends, whichever way — released by its holder (to the store or to the
 * next local thread), found lost, a fixed lease running out, or left by a local hand-off that nobody took. The
 * lease's compare-and-set ({@link StoreLease#end}) lets each end happen once; what follows is always done in one
 * order: stop renewing and the lease's timers, leave the held registry and the local queue, release or hand on,
 * tell the listener, report a loss. Nothing here that decides a lease's state waits on the store: only the
 * holder's own unlock waits for the store's answer to its release (to return after the store confirmed it);
 * releases the engine's timers start are sent and answered asynchronously.
 */
final class LeaseEndings {

    private static final Logger log = LoggerFactory.getLogger(StoreLockService.class);

    private final StoreCalls store;

    private final LockListener listener;

    private final HeldLeases held;

    private final LeaseScheduler scheduler;

    private final LocalHandOff handOff;

    LeaseEndings(StoreCalls store, LockListener listener, HeldLeases held, LeaseScheduler scheduler,
            LocalHandOff handOff) {
        this.store = store;
        this.listener = listener;
        this.held = held;
        this.scheduler = scheduler;
        this.handOff = handOff;
    }

    /**
     * The holder's last hold was released: release the lock in the store (waiting for its answer) or to the next
     * local thread; or, within the hold-at-least time, later.
     *
     * @throws LeaseLostException when the lease had been lost and the handle's policy is not {@link OnLeaseLost#LOG}
     */
    void release(LeaseHandle handle) {
        release(handle, true);
    }

    /**
     * @param byHolder true for the holder's own unlock, which waits for the store's answer; false for a release the
     *        engine's scheduler runs (hold at least), which does not
     */
    private void release(LeaseHandle handle, boolean byHolder) {
        StoreLease lease = handle.lease();
        long now = System.nanoTime();
        if (lease.unconfirmed() || (lease.awaitingConfirmation() && lease.pastDeadline(now))) {
            lost(lease); // a store hand-over not confirmed by its end is a lost lease (F2)
        }
        long holdLeft = handle.takeHoldLeftNanos(now);
        if (holdLeft > 0 && handle.isLockHeld()) {
            holdAfterUnlock(handle, holdLeft);
            return;
        }
        if (!handle.markReleased()) {
            return;
        }
        if (handOff.offer(handle)) {
            // The next thread of this JVM takes the lease over: this hold ends, the lease goes on (renewed as ever).
            handle.releaseLocal();
            log.debug("Lock '{}' (fencing token {}) handed to the next local thread", handle.name(),
                    handle.fencingToken());
            listener.released(handle, ReleaseResult.RELEASED);
            return;
        }
        StoreLease.State before = lease.end(StoreLease.Phase.RELEASED);
        if (before == null) {
            handle.releaseLocal(); // released already (at shutdown, or by a local hand-off nobody took)
            return;
        }
        stopWatching(lease);
        if (!byHolder) {
            store.releaseLater(lease).thenAccept(result -> {
                held.remove(lease);
                handle.releaseLocal();
                released(handle, before, result);
            });
            return;
        }
        ReleaseResult result;
        try {
            result = store.release(lease);
        }
        catch (LockUnavailableException ex) {
            result = ReleaseResult.ERROR;
            log.warn("Release of lock '{}' (fencing token {}) not confirmed by the store; its lease will expire: {}",
                    handle.name(), handle.fencingToken(), ex.getMessage());
        }
        finally {
            held.remove(lease);
            handle.releaseLocal();
        }
        released(handle, before, result);
        if (before.phase() == StoreLease.Phase.LOST && handle.onLeaseLost() != OnLeaseLost.LOG) {
            throw new LeaseLostException("The lease of lock '" + handle.name() + "' (fencing token "
                    + handle.fencingToken() + ") was lost while it was held; mutual exclusion was not guaranteed");
        }
    }

    private void released(LeaseHandle handle, StoreLease.State before, ReleaseResult result) {
        if (result == ReleaseResult.EXPIRED && before.phase() != StoreLease.Phase.LOST) {
            log.warn("Lock '{}' (fencing token {}) was released after its lease had expired: another holder may "
                    + "have run concurrently; use a longer lease or the watchdog", handle.name(),
                    handle.fencingToken());
        }
        else {
            log.debug("Lock '{}' (fencing token {}) released: {}", handle.name(), handle.fencingToken(),
                    result.tag());
        }
        listener.released(handle, result);
    }

    /**
     * Hold at least: the work is done, but the lock stays held, unrenewed, until the time is up. It is no longer
     * counted as held work (a graceful shutdown does not wait for it, and does not release it: the lease, at least
     * as long as the hold, ends it), and no local thread takes it over meanwhile. A fixed lease that ends no
     * earlier than the hold simply runs out.
     */
    private void holdAfterUnlock(LeaseHandle handle, long holdLeftNanos) {
        StoreLease lease = handle.lease();
        scheduler.stopRenewing(lease);
        held.remove(lease);
        log.debug("Lock '{}' (fencing token {}) unlocked; held {} ms more (hold at least)", handle.name(),
                handle.fencingToken(), holdLeftNanos / 1_000_000);
        boolean fixedLeaseEndsFirst = !lease.request().watchdog()
                && lease.deadlineNanos() - (System.nanoTime() + holdLeftNanos) <= 0;
        if (!fixedLeaseEndsFirst) {
            scheduler.runLater(() -> release(handle, false), holdLeftNanos);
        }
    }

    /**
     * The lease was found lost (by a renewal, the deadline guard, the store, a refused confirmation or a force
     * release): whichever thread holds it now is told. One that a local hand-off is passing on is taken by nobody.
     */
    void lost(StoreLease lease) {
        StoreLease.State before = lease.end(StoreLease.Phase.LOST);
        if (before == null) {
            return;
        }
        stopWatching(lease);
        LeaseHandle holder = before.holder();
        if (holder == null) {
            log.debug("Lease of lock '{}' lost while passed to the next local thread", lease.name());
            return; // the next thread finds it lost and asks the store; the lease goes back when it leaves the queue
        }
        held.remove(lease);
        holder.releaseLocal();
        log.warn("Lease of lock '{}' (fencing token {}) lost while held; another node may take it now",
                holder.name(), holder.fencingToken());
        listener.leaseLost(holder);
        holder.lossFound();
    }

    /**
     * A fixed lease ran out before unlock: free the local queue and tell the listeners (a lock taken "for at least
     * this long" is often never unlocked); an unlock later still reports the expiry. A lease that does not end in
     * the store by itself is released there, without waiting for the answer.
     */
    void expired(StoreLease lease) {
        StoreLease.State before = lease.end(StoreLease.Phase.EXPIRED);
        if (before == null) {
            return;
        }
        stopWatching(lease);
        held.remove(lease);
        LeaseHandle holder = before.holder();
        if (holder != null) {
            holder.releaseLocal();
            listener.expired(holder);
        }
        if (!store.traits().leasesExpire()) {
            store.releaseLater(lease);
        }
    }

    /**
     * A lease that a local hand-off left and nobody took (or could use) goes back to the store, without waiting for
     * the answer and without telling anyone (its last holder's release was told already).
     *
     * @return completes, never exceptionally, with the store's answer (or at once when the lease ended already)
     */
    CompletableFuture<ReleaseResult> returnToStore(StoreLease lease) {
        if (lease.end(StoreLease.Phase.RELEASED) == null) {
            return CompletableFuture.completedFuture(ReleaseResult.RELEASED);
        }
        stopWatching(lease);
        held.remove(lease);
        return store.releaseLater(lease);
    }

    private void stopWatching(StoreLease lease) {
        scheduler.stopRenewing(lease);
    }
}
