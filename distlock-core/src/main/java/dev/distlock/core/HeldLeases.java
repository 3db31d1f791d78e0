package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.Condition;
import java.util.concurrent.locks.ReentrantLock;


/**
 * The leases this instance holds, from acquisition until release, loss or expiry: what the actuator lists, what a
 * graceful shutdown waits for, and what is released when the service closes. It also counts the acquisitions in
 * flight, whose lease is not here yet: the service is idle only when there are none either.
 */
final class HeldLeases {

    /**
     * The held leases by owner token: one map for the listing and for the loss reports of session-bound stores (one
     * per lease on a session loss, so a scan each would be quadratic). A lease stays here while local hand-offs pass
     * it from thread to thread.
     */
    private final ConcurrentHashMap<String, StoreLease> byOwner = new ConcurrentHashMap<>();

    /** Guards the wait for idleness; a lock and condition, not a monitor, so a virtual thread waiting never pins. */
    private final ReentrantLock idleLock = new ReentrantLock();

    private final Condition idle = idleLock.newCondition();

    /** Acquisitions between their start and their end (a lease added here, or a failure). */
    private final AtomicInteger acquiring = new AtomicInteger();

    void add(StoreLease lease) {
        byOwner.put(lease.ownerToken(), lease);
    }

    void remove(StoreLease lease) {
        if (byOwner.remove(lease.ownerToken(), lease) && isIdle()) {
            wakeIdleWaiters();
        }
    }

    /** An acquisition starts; must be paired with {@link #acquisitionEnded()}, after {@link #add} if acquired. */
    void acquisitionStarted() {
        acquiring.incrementAndGet();
    }

    void acquisitionEnded() {
        if (acquiring.decrementAndGet() == 0 && isIdle()) {
            wakeIdleWaiters();
        }
    }

    private boolean isIdle() {
        return byOwner.isEmpty() && acquiring.get() == 0;
    }

    private void wakeIdleWaiters() {
        idleLock.lock();
        try {
            idle.signalAll();
        }
        finally {
            idleLock.unlock();
        }
    }

    /** @return the held lease of that owner token, if any */
    Optional<StoreLease> byOwner(String ownerToken) {
        return Optional.ofNullable(byOwner.get(ownerToken));
    }

    List<StoreLease> snapshot() {
        return List.copyOf(byOwner.values());
    }

    /** @return the locks whose lease can still be counted on, oldest first */
    List<HeldLockInfo> info() {
        long now = System.nanoTime();
        List<HeldLockInfo> result = new ArrayList<>();
        for (StoreLease lease : byOwner.values()) {
            LeaseHandle holder = lease.holder();
            if (holder != null && holder.isLockHeld()) {
                result.add(holder.info(now));
            }
        }
        result.sort(Comparator.comparing(HeldLockInfo::acquiredAt));
        return result;
    }

    /**
     * @param timeout how long to wait at most
     * @return true when nothing is held (any more) and no acquisition is in flight
     */
    boolean awaitEmpty(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        idleLock.lock();
        try {
            while (!isIdle()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    idle.awaitNanos(left);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return isIdle();
                }
            }
        }
        finally {
            idleLock.unlock();
        }
        return true;
    }
}
