package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.spi.HeldLockInfo;

/**
 * The leases this instance holds, from acquisition until release, loss or expiry: what the actuator lists, what a
 * graceful shutdown waits for, and what is released when the service closes.
 */
final class HeldLeases {

    private final Set<LeaseHandle> held = ConcurrentHashMap.newKeySet();

    private final Object idle = new Object();

    void add(LeaseHandle handle) {
        held.add(handle);
    }

    void remove(LeaseHandle handle) {
        if (held.remove(handle) && held.isEmpty()) {
            synchronized (idle) {
                idle.notifyAll();
            }
        }
    }

    /** @return the held lease of that owner token, if any */
    Optional<LeaseHandle> byOwner(String ownerToken) {
        return held.stream().filter(h -> h.request().ownerToken().equals(ownerToken)).findFirst();
    }

    List<LeaseHandle> snapshot() {
        return List.copyOf(held);
    }

    /** @return the locks whose lease can still be counted on, oldest first */
    List<HeldLockInfo> info() {
        long now = System.nanoTime();
        List<HeldLockInfo> result = new ArrayList<>();
        for (LeaseHandle handle : held) {
            if (handle.isLockHeld()) {
                result.add(handle.info(now));
            }
        }
        result.sort(Comparator.comparing(HeldLockInfo::acquiredAt));
        return result;
    }

    /**
     * @param timeout how long to wait at most
     * @return true when nothing is held (any more)
     */
    boolean awaitEmpty(Duration timeout) {
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (idle) {
            while (!held.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    idle.wait(Math.max(1, left / 1_000_000L));
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return held.isEmpty();
                }
            }
        }
        return true;
    }
}
