package dev.distlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.Lock;

import org.jspecify.annotations.Nullable;

/**
 * A distributed lock as a {@link Lock} ({@link LockService#asLock}): owned by the thread that locked it, as that
 * interface expects, and reentrant for that thread (a hold count, as {@link java.util.concurrent.locks.ReentrantLock}
 * has); the store's lock is released when the owner's last {@link #unlock()} runs. Each instance is one lock
 * acquisition at a time: threads of this JVM share an instance, and queue on it through the lock service.
 * <p>
 * {@code lock()} waits until it gets the lock (an interrupt does not end the wait; the thread's interrupt flag is set
 * again afterwards), {@code tryLock()} tries once, {@code lockInterruptibly()} and {@code tryLock(time, unit)} end
 * with {@link InterruptedException} when interrupted; {@code newCondition()} is unsupported.
 * <p>
 * Waits use the lock service's leases (watchdog-renewed unless the options fix them, or a call names a lease time)
 * and fail closed: a store that cannot answer throws {@link LockUnavailableException} from every locking method.
 * <p>
 * The owner holds the lock only while its lease does: when the lease was lost, the owner's next locking call takes
 * the lock from the store anew (waiting like any caller, and failing when another holder has it) instead of counting
 * one more hold of a lock it no longer has. That is what a holder that checks its lock by taking it again (Spring
 * Integration's {@code LockRegistryLeaderInitiator}) relies on.
 */
public final class ThreadOwnedLock implements Lock {

    /** A wait without end is made of waits this long, so that no deadline arithmetic overflows. */
    private static final Duration FOREVER_STEP = Duration.ofMinutes(10);

    private final LockService service;

    private final String name;

    private final LockOptions options;

    /** Written by the owner only (after acquiring, before releasing), read by any thread. */
    private volatile @Nullable Thread owner;

    private volatile @Nullable LockHandle handle;

    /** The owner's holds; touched by the owner only. */
    private int holds;

    ThreadOwnedLock(LockService service, String name, LockOptions options) {
        this.service = service;
        this.name = name;
        this.options = options;
    }

    @Override
    public void lock() {
        lock(null);
    }

    /**
     * {@link #lock()} with a fixed lease of this time for this acquisition (not renewed by the watchdog); a further
     * hold of the owner keeps the lease it has.
     *
     * @param leaseTime the lease time, or null for the lock's options
     */
    public void lock(@Nullable Duration leaseTime) {
        boolean interrupted = false;
        while (true) {
            try {
                if (acquire(FOREVER_STEP, leaseTime)) {
                    break;
                }
            }
            catch (InterruptedException ex) {
                interrupted = true; // lock() does not give up when interrupted: it tells the thread afterwards
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        while (!acquire(FOREVER_STEP, null)) {
            // keep waiting: a wait without end is a series of bounded ones
        }
    }

    @Override
    public boolean tryLock() {
        try {
            return acquire(Duration.ZERO, null);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return tryLock(Duration.ofNanos(Math.max(0, unit.toNanos(time))), null);
    }

    /**
     * {@link #tryLock(long, TimeUnit)} with a fixed lease of this time for this acquisition (not renewed by the
     * watchdog); a further hold of the owner keeps the lease it has.
     *
     * @param waitTime how long to wait at most
     * @param leaseTime the lease time, or null for the lock's options
     * @return whether the calling thread holds the lock now
     * @throws InterruptedException when the thread was interrupted before or while waiting
     */
    public boolean tryLock(Duration waitTime, @Nullable Duration leaseTime) throws InterruptedException {
        return acquire(waitTime.isNegative() ? Duration.ZERO : waitTime, leaseTime);
    }

    /** @return whether the calling thread holds the lock (its lease may have been lost since) */
    public boolean isHeldByCurrentThread() {
        return owner == Thread.currentThread();
    }

    /** @return whether some thread of this JVM holds the lock through this instance */
    public boolean isLocked() {
        return owner != null;
    }

    /**
     * @return whether the calling thread holds the lock now (a further hold when it held it already)
     * @throws InterruptedException when the thread was interrupted before or while waiting
     */
    private boolean acquire(Duration wait, @Nullable Duration leaseTime) throws InterruptedException {
        Thread me = Thread.currentThread();
        LockHandle held = handle;
        if (owner == me && held != null && held.isHeld()) {
            holds++;
            return true;
        }
        if (Thread.interrupted()) {
            throw new InterruptedException("Interrupted before locking '" + name + "'");
        }
        Optional<LockHandle> acquired = take(wait, leaseTime);
        if (acquired.isEmpty()) {
            if (owner == me) {
                // The owner's lease was lost and another holder has the lock: its holds are void. Keeping them
                // would make its next successful acquisition one hold more than its unlocks, never released.
                release(held);
            }
            return false;
        }
        if (owner == me) {
            // The owner's lease was lost (reported when it was); its holds go on under the new lease.
            handle = acquired.get();
            holds++;
            endQuietly(held);
            return true;
        }
        handle = acquired.get();
        holds = 1;
        owner = me;
        return true;
    }

    private Optional<LockHandle> take(Duration wait, @Nullable Duration leaseTime) throws InterruptedException {
        LockOptions asked = options.withWaitTime(wait);
        try {
            return service.tryLock(name, leaseTime != null ? asked.withLeaseTime(leaseTime) : asked);
        }
        catch (LockException ex) {
            // The lock service answers an interrupt with a LockException and the thread's flag set again.
            if (!(ex instanceof LockUnavailableException) && Thread.interrupted()) {
                InterruptedException interrupted = new InterruptedException(ex.getMessage());
                interrupted.initCause(ex);
                throw interrupted;
            }
            throw ex;
        }
    }

    /** Ends a lost lease's handle; its loss was logged and counted when it happened, so it is not thrown again. */
    private static void endQuietly(@Nullable LockHandle lost) {
        if (lost == null) {
            return;
        }
        try {
            lost.unlock();
        }
        catch (LeaseLostException ex) {
            // told already (see above)
        }
    }

    /**
     * @throws IllegalMonitorStateException when the calling thread does not hold the lock
     * @throws LeaseLostException when the lease was lost while held and {@code distlock.on-lease-lost=throw}
     */
    @Override
    public void unlock() {
        if (owner != Thread.currentThread()) {
            throw new IllegalMonitorStateException("Lock '" + name + "' is not held by " + Thread.currentThread());
        }
        if (--holds > 0) {
            return;
        }
        LockHandle held = handle;
        release(null);
        if (held != null) {
            held.unlock();
        }
    }

    /** Gives ownership up (owner only); the handle given, a lost one, is ended quietly. */
    private void release(@Nullable LockHandle lost) {
        handle = null;
        holds = 0;
        owner = null;
        endQuietly(lost);
    }

    /** @throws UnsupportedOperationException always: a distributed lock has no conditions to wait on */
    @Override
    public Condition newCondition() {
        throw new UnsupportedOperationException("Lock '" + name + "' is a distributed lock: it has no conditions");
    }

    @Override
    public String toString() {
        Thread holder = owner;
        return "ThreadOwnedLock[" + name + (holder != null ? ", held by " + holder.getName() : "") + "]";
    }
}
