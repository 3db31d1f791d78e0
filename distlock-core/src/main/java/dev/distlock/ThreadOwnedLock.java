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
 * Waits use the lock service's leases (watchdog-renewed unless the options fix them) and fail closed: a store that
 * cannot answer throws {@link LockUnavailableException} from every locking method.
 */
final class ThreadOwnedLock implements Lock {

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
        boolean interrupted = false;
        while (true) {
            try {
                if (acquire(FOREVER_STEP)) {
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
        while (!acquire(FOREVER_STEP)) {
            // keep waiting: a wait without end is a series of bounded ones
        }
    }

    @Override
    public boolean tryLock() {
        try {
            return acquire(Duration.ZERO);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return acquire(Duration.ofNanos(Math.max(0, unit.toNanos(time))));
    }

    /**
     * @return whether the calling thread holds the lock now (a further hold when it held it already)
     * @throws InterruptedException when the thread was interrupted before or while waiting
     */
    private boolean acquire(Duration wait) throws InterruptedException {
        Thread me = Thread.currentThread();
        if (owner == me) {
            holds++;
            return true;
        }
        if (Thread.interrupted()) {
            throw new InterruptedException("Interrupted before locking '" + name + "'");
        }
        Optional<LockHandle> acquired;
        try {
            acquired = service.tryLock(name, options.withWaitTime(wait));
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
        if (acquired.isEmpty()) {
            return false;
        }
        handle = acquired.get();
        holds = 1;
        owner = me;
        return true;
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
        handle = null;
        owner = null;
        if (held != null) {
            held.unlock();
        }
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
