package dev.distlock.integration;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Condition;

import dev.distlock.ThreadOwnedLock;

import org.springframework.integration.support.locks.DistributedLock;

/**
 * One key's lock of a {@link DistlockLockRegistry}: Spring Integration's {@link DistributedLock} over distlock's
 * thread-owned lock, which does the work (owner thread, holds, leases, failing closed). This class only maps the
 * interface and remembers when the registry last handed it out, so that unused locks can be forgotten.
 */
final class DistlockDistributedLock implements DistributedLock {

    private final ThreadOwnedLock lock;

    /** When {@link DistlockLockRegistry#obtain} last returned this lock, in {@link System#currentTimeMillis()}. */
    private volatile long lastObtained;

    DistlockDistributedLock(ThreadOwnedLock lock) {
        this.lock = lock;
        this.lastObtained = System.currentTimeMillis();
    }

    DistlockDistributedLock obtained() {
        lastObtained = System.currentTimeMillis();
        return this;
    }

    /** @return whether the registry may forget it: no thread holds it and it was not handed out since {@code before} */
    boolean unusedSince(long before) {
        return !lock.isLocked() && lastObtained < before;
    }

    @Override
    public void lock() {
        lock.lock();
    }

    @Override
    public void lock(Duration ttl) {
        lock.lock(ttl);
    }

    @Override
    public void lockInterruptibly() throws InterruptedException {
        lock.lockInterruptibly();
    }

    @Override
    public boolean tryLock() {
        return lock.tryLock();
    }

    @Override
    public boolean tryLock(long time, TimeUnit unit) throws InterruptedException {
        return lock.tryLock(time, unit);
    }

    @Override
    public boolean tryLock(Duration waitTime, Duration ttl) throws InterruptedException {
        return lock.tryLock(waitTime, ttl);
    }

    @Override
    public void unlock() {
        lock.unlock();
    }

    @Override
    public Condition newCondition() {
        return lock.newCondition();
    }

    @Override
    public String toString() {
        return lock.toString();
    }
}
