package dev.distlock.core;

import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockHandle;
import dev.distlock.OnLeaseLost;
import dev.distlock.spi.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * One holder's acquisition of a {@link StoreLease}: the outermost hold of a lock. Reentrant holds in a scope
 * ({@link ReentrantHandle}) count on top of it; the lock is released when the last hold is released. The lease's
 * state (deadline, renewals, loss) is the lease's; a handle keeps only what is its holder's own: its fencing token,
 * its holds, its hold-at-least time and who watches it for a loss.
 */
final class LeaseHandle implements LockHandle {

    private final LeaseLifecycle service;

    private final StoreLease lease;

    private final long fencingToken;

    /** Whether the lease came to this handle from the store (not from a local hand-off). */
    private final boolean fromStore;

    private final Instant acquiredAt = Instant.now();

    private final long acquiredNanos = System.nanoTime();

    /** 1 for this handle plus one per reentrant hold not yet released; 0 once the lock is being released. */
    private final AtomicInteger holds = new AtomicInteger(1);

    private final AtomicBoolean unlocked = new AtomicBoolean();

    /** Set once this holder's release ran (to the store or to the next local thread). */
    private final AtomicBoolean released = new AtomicBoolean();

    private final AtomicBoolean localReleased = new AtomicBoolean();

    /** Told once when the lease is found lost (a leadership candidate's thread); null when nobody waits for it. */
    private volatile @Nullable Runnable lossWatcher;

    /** The actions that stop the work at a loss; made by the first {@link #whenLost}: none without one. */
    private volatile @Nullable LossWatches lossWatches;

    /** Set once the loss was told: a watch made later runs at once. */
    private volatile boolean lossTold;

    /** The policy of this acquisition, resolved from its options and the configuration when it was granted. */
    private volatile OnLeaseLost onLeaseLost = OnLeaseLost.LOG;

    /** Until when an unlock leaves the lock held (hold at least), from the grant; 0 for a release at the unlock. */
    private volatile long holdUntilNanos;

    private LeaseHandle(LeaseLifecycle service, StoreLease lease, long fencingToken, boolean fromStore) {
        this.service = service;
        this.lease = lease;
        this.fencingToken = fencingToken;
        this.fromStore = fromStore;
    }

    /**
     * @return the first holder of a lease the store just granted
     */
    static LeaseHandle first(LeaseLifecycle service, StoreLease lease) {
        LeaseHandle handle = new LeaseHandle(service, lease, lease.fencingToken(), true);
        lease.hold(handle);
        return handle;
    }

    /**
     * @param fencingToken the next holder's token
     * @return the next local holder of a lease nobody holds, or {@code null} when the lease ended meanwhile
     */
    static @Nullable LeaseHandle next(LeaseLifecycle service, StoreLease lease, long fencingToken) {
        LeaseHandle handle = new LeaseHandle(service, lease, fencingToken, false);
        return lease.hold(handle) ? handle : null;
    }

    StoreLease lease() {
        return lease;
    }

    /** @return whether the lease came from the store, not from a local hand-off */
    boolean fromStore() {
        return fromStore;
    }

    @Override
    public String name() {
        return lease.name();
    }

    @Override
    public long fencingToken() {
        return fencingToken;
    }

    LockRequest request() {
        return lease.request();
    }

    /** @return the lifecycle of the service that issued this lease */
    LeaseLifecycle issuer() {
        return service;
    }

    @Override
    public boolean isHeld() {
        return !unlocked.get() && isLockHeld();
    }

    /** @return whether the lease (of this handle or a reentrant hold on it) can still be counted on */
    boolean isLockHeld() {
        return lease.heldBy(this) && service.storeMayHold(lease);
    }

    @Override
    public void unlock() {
        if (unlocked.compareAndSet(false, true)) {
            releaseHold();
        }
    }

    /**
     * Adds a reentrant hold, atomically with respect to the release of the last one.
     *
     * @return the new hold, or {@code null} when the lock is being released or its lease can no longer be counted
     *         on
     */
    @Nullable ReentrantHandle tryEnter() {
        while (true) {
            int current = holds.get();
            if (current == 0 || !isLockHeld()) {
                return null;
            }
            if (holds.compareAndSet(current, current + 1)) {
                return new ReentrantHandle(this);
            }
        }
    }

    /** Drops one hold; the last one releases the lock. */
    void releaseHold() {
        if (holds.decrementAndGet() == 0) {
            service.lastHoldReleased(this);
        }
    }

    /** @return true the first time only: this holder's release runs once */
    boolean markReleased() {
        return released.compareAndSet(false, true);
    }

    /**
     * @param watcher told when the lease is found lost (by the deadline guard, a renewal or the store); check
     *        {@link #isHeld()} after setting it, since a loss before it was set is not told again
     */
    void watchLoss(Runnable watcher) {
        lossWatcher = watcher;
    }

    /** Tells the loss watcher, if any, and stops the work that asked to be stopped. */
    void lossFound() {
        lossTold = true;
        LossWatches watches = lossWatches;
        if (watches != null) {
            watches.lost();
        }
        Runnable watcher = lossWatcher;
        if (watcher != null) {
            watcher.run();
        }
    }

    @Override
    public LockHandle.LossWatch whenLost(Runnable action) {
        LossWatches watches = lossWatches;
        if (watches == null) {
            synchronized (this) {
                watches = lossWatches;
                if (watches == null) {
                    watches = new LossWatches();
                    lossWatches = watches;
                }
            }
        }
        LockHandle.LossWatch watch = watches.add(action);
        if (lossTold) {
            watches.lost(); // told before the watches existed; each watch runs once, so telling again is harmless
        }
        return watch;
    }

    @Override
    public OnLeaseLost onLeaseLost() {
        return onLeaseLost;
    }

    /** @param policy this acquisition's policy, set when it is granted, before the holder sees the handle */
    void onLeaseLost(OnLeaseLost policy) {
        onLeaseLost = policy;
    }

    /** @param holdAtLeast how long after now (the grant) an unlock leaves the lock held; zero for none */
    void holdAtLeast(Duration holdAtLeast) {
        holdUntilNanos = holdAtLeast.isZero() ? 0 : System.nanoTime() + holdAtLeast.toNanos();
    }

    /**
     * @return how much longer an unlock now must leave the lock held (0: release it); once: later calls say 0, so
     *         the release that comes when the time is up goes through
     */
    long takeHoldLeftNanos(long nowNanos) {
        long until = holdUntilNanos;
        holdUntilNanos = 0;
        return (until == 0) ? 0 : Math.max(0, until - nowNanos);
    }

    /** Lets the next thread of this JVM compete for the lock. Runs once. */
    void releaseLocal() {
        if (localReleased.compareAndSet(false, true)) {
            service.localHoldEnded(this);
        }
    }

    @Override
    public Duration remaining() {
        return isHeld() ? leaseRemaining(System.nanoTime()) : Duration.ZERO;
    }

    /** @return what is left of the lease (see {@link LockHandle#remaining()}), whoever holds it */
    Duration leaseRemaining(long nowNanos) {
        return lease.deadlineCounts() ? Duration.ofNanos(Math.max(0, lease.deadlineNanos() - nowNanos))
                : request().leaseTime();
    }

    HeldLockInfo info(long nowNanos) {
        return new HeldLockInfo(name(), fencingToken, acquiredAt, Duration.ofNanos(nowNanos - acquiredNanos),
                leaseRemaining(nowNanos), request().watchdog(), lease.renewals(), lease.lastRenewalAt());
    }

    @Override
    public String toString() {
        return "LockHandle[" + name() + ", fencingToken=" + fencingToken
                + (request().type() == dev.distlock.LockType.READ ? ", read" : "") + "]";
    }
}
