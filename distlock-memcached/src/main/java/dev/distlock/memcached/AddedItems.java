package dev.distlock.memcached;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.jspecify.annotations.Nullable;

/**
 * The CAS of each item a lease added and still holds unchanged, by owner token, so that its release is one
 * {@code cas} ({@link MemcachedLockStore}). Bounded: when full, what is added next is not remembered and its release
 * reads its item first (slower, as safe). A renewal, release or cancel takes its entry away; a lease that Memcached
 * ends by itself gets none of these from the engine (a lock held "at least" its lease and never unlocked), so a full
 * map first forgets the entries of leases that have run out, at most once a second. Forgetting early is safe: a
 * release without its CAS is owner-checked.
 */
final class AddedItems {

    private static final long PURGE_INTERVAL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final Map<String, Added> byOwner = new ConcurrentHashMap<>();

    private final int capacity;

    /** When the map may next be purged of ended leases' entries. */
    private final AtomicLong nextPurge = new AtomicLong(System.nanoTime());

    /** @param capacity the most entries kept */
    AddedItems(int capacity) {
        this.capacity = capacity;
    }

    /**
     * @param ownerToken the lease's owner token
     * @param cas the CAS the item had when read right after its add
     * @param token the fencing token written in it
     * @param lease the lease time, after which the entry may be forgotten
     */
    void remember(String ownerToken, long cas, long token, Duration lease) {
        if (hasRoom()) {
            byOwner.put(ownerToken, new Added(cas, token, System.nanoTime() + lease.toNanos()));
        }
    }

    /** @return the lease's entry, taken away; null when none is kept */
    @Nullable Added take(String ownerToken) {
        return byOwner.remove(ownerToken);
    }

    /** @return how many entries are kept */
    int size() {
        return byOwner.size();
    }

    void clear() {
        byOwner.clear();
    }

    private boolean hasRoom() {
        if (byOwner.size() < capacity) {
            return true;
        }
        long now = System.nanoTime();
        long due = nextPurge.get();
        if (now - due >= 0 && nextPurge.compareAndSet(due, now + PURGE_INTERVAL_NANOS)) {
            byOwner.values().removeIf(added -> now - added.leaseEndNanos() > 0);
        }
        return byOwner.size() < capacity;
    }

    /**
     * An added item's CAS, the token written in it, and when its lease ends ({@link System#nanoTime()}).
     *
     * @param cas the item's CAS right after the add
     * @param token the fencing token in the item
     * @param leaseEndNanos the lease's end
     */
    record Added(long cas, long token, long leaseEndNanos) {
    }
}
