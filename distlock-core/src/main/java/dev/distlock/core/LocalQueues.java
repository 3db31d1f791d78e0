package dev.distlock.core;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;

import org.jspecify.annotations.Nullable;

/**
 * Queues the threads of this JVM that want the same lock, so that only one of them at a time competes in the
 * store: the others wait locally, in arrival order, without store traffic.
 * <p>
 * An entry exists only while some thread wants or holds the lock: it is created on the first request and removed
 * when the last user leaves, so a million distinct lock names leave nothing behind.
 */
final class LocalQueues {

    private final ConcurrentHashMap<Key, Entry> entries = new ConcurrentHashMap<>();

    /** Readers of a name queue apart from exclusive requests: they compete one at a time but share the lock. */
    private record Key(String name, boolean shared) {
    }

    /** Registers interest in the name; must be paired with {@link #leave(Entry)}. */
    Entry join(String name, boolean shared) {
        return entries.compute(new Key(name, shared), (key, entry) -> {
            Entry joined = entry != null ? entry : new Entry(key);
            joined.users++;
            return joined;
        });
    }

    /**
     * @return a lease left for a local waiter (see {@link LocalHandOff}) that nobody will take any more, because
     *         the last user of the name left: the caller releases it to the store
     */
    @Nullable LeaseHandle leave(Entry entry) {
        boolean[] removed = { false };
        entries.computeIfPresent(entry.key, (key, current) -> {
            if (current != entry) {
                return current;
            }
            removed[0] = --current.users == 0;
            return removed[0] ? null : current;
        });
        return removed[0] ? entry.takeTransfer() : null;
    }

    /**
     * A lock was released somewhere: wake this JVM's competitors for it. The one the lock was reserved for tries at
     * once; the others try when the reservation ends (if its waiter is gone, they must not wait for their next
     * re-check).
     */
    void released(String name, @Nullable String handedTo, long reservedMillis) {
        long recheckAt = System.nanoTime() + reservedMillis * 1_000_000L + RESERVATION_SLACK_NANOS;
        wake(entries.get(new Key(name, false)), handedTo, recheckAt);
        wake(entries.get(new Key(name, true)), handedTo, recheckAt);
    }

    /** Time after a reservation's end at which the other waiters try, so that its own waiter wins on time. */
    private static final long RESERVATION_SLACK_NANOS = 2_000_000L;

    private static void wake(@Nullable Entry entry, @Nullable String handedTo, long recheckAt) {
        if (entry == null) {
            return;
        }
        Thread competitor = entry.competitor;
        if (competitor == null) {
            return;
        }
        if (handedTo == null || handedTo.equals(entry.competitorToken)) {
            entry.wakeNow = true;
        }
        else {
            entry.recheckAtNanos = recheckAt;
        }
        LockSupport.unpark(competitor);
    }

    /** Wakes every thread waiting in the store, so that it sees at once that the service is shutting down. */
    void wakeAll() {
        for (Entry entry : entries.values()) {
            Thread competitor = entry.competitor;
            if (competitor != null) {
                entry.wakeNow = true;
                LockSupport.unpark(competitor);
            }
        }
    }

    /** @return the number of lock names with local state (for tests: stays flat) */
    int size() {
        return entries.size();
    }

    /** The local queue of one lock name (and mode). */
    static final class Entry {

        final Key key;

        /** Held by the one thread of this JVM that competes for, or holds, the lock in the store. FIFO. */
        final Semaphore permit = new Semaphore(1, true);

        /** The thread waiting in the store now, woken by release notifications. */
        volatile @Nullable Thread competitor;

        /** The owner token the competitor asks with; a release may reserve the lock for one token. */
        volatile @Nullable String competitorToken;

        /** Set when the competitor should try at once. */
        volatile boolean wakeNow;

        /** When non-zero, the competitor tries at this {@link System#nanoTime()} at the latest. */
        volatile long recheckAtNanos;

        /** Guarded by the map's per-key lock in compute. */
        int users;

        /** A lease its holder left for the next local thread ({@link LocalHandOff}). */
        private final java.util.concurrent.atomic.AtomicReference<@Nullable LeaseHandle> transfer =
                new java.util.concurrent.atomic.AtomicReference<>();

        /** Local hand-offs since the lock came from the store; read and written by the permit holder only. */
        int streakCount;

        /** When the lock came from the store ({@link System#nanoTime()}); permit holder only. */
        long streakStartNanos;

        Entry(Key key) {
            this.key = key;
        }

        String name() {
            return key.name();
        }

        boolean shared() {
            return key.shared();
        }

        void compete(String ownerToken) {
            competitorToken = ownerToken;
            wakeNow = false;
            recheckAtNanos = 0;
            competitor = Thread.currentThread();
        }

        void transfer(LeaseHandle handle) {
            transfer.set(handle);
        }

        @Nullable LeaseHandle takeTransfer() {
            return transfer.getAndSet(null);
        }

        void stopCompeting() {
            competitor = null;
            competitorToken = null;
        }
    }
}
