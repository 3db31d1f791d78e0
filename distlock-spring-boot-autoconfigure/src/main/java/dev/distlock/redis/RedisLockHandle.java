package dev.distlock.redis;

import java.time.Instant;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockHandle;

/**
 * The outermost acquisition of a lock in Redis. Reentrant acquisitions by the same call chain get a
 * {@link ReentrantLockHandle} on top of it; Redis is released when the last of them is released.
 */
final class RedisLockHandle implements LockHandle {

    static final int HELD = 0;

    static final int LOST = 1;

    static final int EXPIRED = 2;

    static final int RELEASED = 3;

    final RedisLockService service;

    final String name;

    final LockKeys keys;

    /** Unguessable owner token of this acquisition; never logged or exposed. */
    final byte[] ownerToken;

    final long fencingToken;

    final boolean watchdog;

    /** True for a {@link dev.distlock.LockType#READ} lock, shared with other readers. */
    final boolean shared;

    final long leaseMillis;

    final LocalLockQueues.Entry localEntry;

    final Instant acquiredAt = Instant.now();

    final long acquiredNanos;

    /** When the lease ends unless renewed, as known to this JVM (measured from before the request was sent). */
    volatile long leaseDeadlineNanos;

    volatile long renewals;

    volatile Instant lastRenewalAt;

    volatile long lastRenewalNanos;

    /** For fixed leases: frees the local queue when the lease runs out without an unlock. */
    volatile ScheduledFuture<?> expiry;

    final AtomicInteger state = new AtomicInteger(HELD);

    /** 1 for this handle plus one per reentrant handle not yet released. */
    final AtomicInteger holds = new AtomicInteger(1);

    private final AtomicBoolean unlocked = new AtomicBoolean();

    private final AtomicBoolean localReleased = new AtomicBoolean();

    private Runnable unbind = () -> {
    };

    RedisLockHandle(RedisLockService service, String name, LockKeys keys, byte[] ownerToken, long fencingToken,
            boolean watchdog, boolean shared, long leaseMillis, LocalLockQueues.Entry localEntry,
            long requestSentNanos) {
        this.service = service;
        this.name = name;
        this.keys = keys;
        this.ownerToken = ownerToken;
        this.fencingToken = fencingToken;
        this.watchdog = watchdog;
        this.shared = shared;
        this.leaseMillis = leaseMillis;
        this.localEntry = localEntry;
        this.acquiredNanos = System.nanoTime();
        this.leaseDeadlineNanos = requestSentNanos + leaseMillis * 1_000_000L;
        this.lastRenewalNanos = requestSentNanos;
    }

    void bindTo(Runnable unbind) {
        this.unbind = unbind;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long fencingToken() {
        return fencingToken;
    }

    @Override
    public boolean isHeld() {
        return !unlocked.get() && isLockHeld();
    }

    /** @return whether the lock (this handle or a reentrant one on top of it) is still held in Redis */
    boolean isLockHeld() {
        return state.get() == HELD && (watchdog || System.nanoTime() - leaseDeadlineNanos < 0);
    }

    @Override
    public void unlock() {
        if (unlocked.compareAndSet(false, true)) {
            unbind.run();
            releaseHold();
        }
    }

    /** Removes the handle from its call chain's context (at shutdown, when the handle is released for it). */
    void unbind() {
        unbind.run();
    }

    /** Drops one hold; the last one releases the lock in Redis. */
    void releaseHold() {
        if (holds.decrementAndGet() == 0) {
            service.release(this);
        }
    }

    /** Lets the next thread of this JVM compete for the lock. Runs once. */
    void releaseLocal() {
        if (localReleased.compareAndSet(false, true)) {
            ScheduledFuture<?> pending = expiry;
            if (pending != null) {
                pending.cancel(false);
            }
            service.leaveLocal(this);
        }
    }

    /** @return the mode argument of the scripts */
    byte[] mode() {
        return shared ? RedisLockService.SHARED : RedisLockService.EXCLUSIVE;
    }

    @Override
    public String toString() {
        return "LockHandle[" + name + ", fencingToken=" + fencingToken + (shared ? ", read" : "") + "]";
    }
}
