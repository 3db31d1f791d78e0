package dev.distlock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.LockUnavailableException;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.StoreHealth;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockStore} in this JVM's memory, with the semantics of the real stores: owner-checked release and
 * renewal, leases that run out on the clock, shared read locks, and fencing tokens that increase per name. Several
 * {@link dev.distlock.core.StoreLockService}s on one instance stand for several application nodes.
 * <p>
 * For tests: {@link #makeUnavailable()} simulates an outage (every call fails closed) and {@link #forget(String)}
 * loses a holder's lease behind its back.
 */
public final class InMemoryLockStore implements LockStore {

    private final Map<String, Slot> slots = new ConcurrentHashMap<>();

    private volatile boolean available = true;

    private volatile @Nullable StoreEvents events;

    /** The state of one lock name; guarded by its own monitor. */
    private static final class Slot {

        @Nullable String owner;

        long leaseEndNanos;

        final Map<String, Long> readers = new HashMap<>();

        long lastToken;

        void expire(long now) {
            if (owner != null && now - leaseEndNanos >= 0) {
                owner = null;
            }
            readers.values().removeIf(end -> now - end >= 0);
        }

        long remainingMillis(long now) {
            long end = leaseEndNanos;
            for (long reader : readers.values()) {
                end = Math.max(end, reader);
            }
            return Math.max(1, (end - now) / 1_000_000L);
        }
    }

    private Slot slot(String name) {
        return slots.computeIfAbsent(name, key -> new Slot());
    }

    private void requireAvailable() {
        if (!available) {
            throw new LockUnavailableException("The in-memory lock store is unavailable (simulated outage)");
        }
    }

    @Override
    public void start(StoreEvents events) {
        this.events = events;
    }

    @Override
    public Attempt attempt(LockRequest request, long remainingWaitMillis, boolean retry) {
        requireAvailable();
        Slot slot = slot(request.name());
        long now = System.nanoTime();
        synchronized (slot) {
            slot.expire(now);
            String token = request.ownerToken();
            if (request.shared()) {
                if (slot.owner != null) {
                    return Attempt.busy(slot.remainingMillis(now));
                }
                slot.readers.put(token, now + request.leaseTime().toNanos());
                return Attempt.acquired(++slot.lastToken);
            }
            if (token.equals(slot.owner)) {
                slot.leaseEndNanos = now + request.leaseTime().toNanos();
                return Attempt.acquired(slot.lastToken);
            }
            if (slot.owner != null || !slot.readers.isEmpty()) {
                return Attempt.busy(slot.remainingMillis(now));
            }
            slot.owner = token;
            slot.leaseEndNanos = now + request.leaseTime().toNanos();
            return Attempt.acquired(++slot.lastToken);
        }
    }

    @Override
    public void cancel(LockRequest request) {
        // Nobody is queued in memory: the engine's waiters wake on release notifications and re-checks.
    }

    @Override
    public ReleaseResult release(Lease lease) {
        requireAvailable();
        LockRequest request = lease.request();
        Slot slot = slot(request.name());
        boolean released;
        synchronized (slot) {
            slot.expire(System.nanoTime());
            if (request.shared()) {
                released = slot.readers.remove(request.ownerToken()) != null;
            }
            else {
                released = request.ownerToken().equals(slot.owner);
                if (released) {
                    slot.owner = null;
                }
            }
        }
        StoreEvents listening = events;
        if (released && listening != null) {
            listening.released(request.name(), null, 0);
        }
        return released ? ReleaseResult.RELEASED : ReleaseResult.EXPIRED;
    }

    @Override
    public List<RenewalResult> renew(List<? extends Lease> leases) {
        requireAvailable();
        long now = System.nanoTime();
        List<RenewalResult> results = new ArrayList<>(leases.size());
        for (Lease lease : leases) {
            LockRequest request = lease.request();
            Slot slot = slot(request.name());
            synchronized (slot) {
                slot.expire(now);
                long end = now + request.leaseTime().toNanos();
                boolean held = request.shared() ? slot.readers.replace(request.ownerToken(), end) != null
                        : request.ownerToken().equals(slot.owner);
                if (held && !request.shared()) {
                    slot.leaseEndNanos = end;
                }
                results.add(held ? RenewalResult.RENEWED : RenewalResult.LOST);
            }
        }
        return results;
    }

    @Override
    public StoreHealth health(Duration timeout) {
        return new StoreHealth(available, Map.of("store", "in-memory"));
    }

    @Override
    public void close() {
        events = null;
    }

    /** Every call fails with {@link LockUnavailableException} until {@link #makeAvailable()}. */
    public void makeUnavailable() {
        available = false;
    }

    /** Ends a simulated outage. */
    public void makeAvailable() {
        available = true;
    }

    /**
     * Loses the holders of a lock behind their backs, as data loss would; their watchdog reports the lease lost.
     *
     * @param name the lock name
     */
    public void forget(String name) {
        Slot slot = slot(name);
        synchronized (slot) {
            slot.owner = null;
            slot.readers.clear();
        }
    }

    /**
     * @param name the lock name
     * @return whether someone holds the lock now
     */
    public boolean isLocked(String name) {
        Slot slot = slots.get(name);
        if (slot == null) {
            return false;
        }
        synchronized (slot) {
            slot.expire(System.nanoTime());
            return slot.owner != null || !slot.readers.isEmpty();
        }
    }
}
