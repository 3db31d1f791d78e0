package dev.distlock.redis;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.locks.LockSupport;

/**
 * Queues the threads of this JVM that want the same lock, so that only one of them at a time competes in Redis
 * (the others wait locally, in arrival order, without any Redis traffic).
 * <p>
 * An entry exists only while some thread wants or holds the lock: it is created on the first request and removed
 * when the last user leaves, so a million distinct lock names leave nothing behind.
 */
final class LocalLockQueues {

    /**
     * Readers of a name queue apart from exclusive requests: readers of one JVM compete one at a time but do not
     * wait for each other's release.
     */
    private static final String READ_SUFFIX = "\u0000read";

    private final ConcurrentHashMap<String, Entry> entries = new ConcurrentHashMap<>();

    private static String key(String name, boolean shared) {
        return shared ? name + READ_SUFFIX : name;
    }

    /** Registers interest in the name; must be paired with {@link #leave(String, boolean, Entry)}. */
    Entry join(String name, boolean shared) {
        return entries.compute(key(name, shared), (key, entry) -> {
            Entry joined = entry != null ? entry : new Entry();
            joined.users++;
            return joined;
        });
    }

    void leave(String name, boolean shared, Entry entry) {
        entries.computeIfPresent(key(name, shared), (key, current) -> {
            if (current != entry) {
                return current;
            }
            return --current.users == 0 ? null : current;
        });
    }

    /**
     * Wakes this JVM's competitor for the lock if the release handed the lock to it (release notifications name the
     * one waiter the lock is reserved for, so the others keep sleeping instead of racing for it).
     *
     * @param name the lock name
     * @param owner the owner token of the waiter the lock was handed to
     */
    void handOff(String name, String owner) {
        wake(entries.get(name), owner);
        wake(entries.get(name + READ_SUFFIX), owner);
    }

    private static void wake(Entry entry, String owner) {
        if (entry != null && owner.equals(entry.competitorToken)) {
            Thread competitor = entry.competitor;
            if (competitor != null) {
                LockSupport.unpark(competitor);
            }
        }
    }

    /** @return the number of lock names with local state (for tests: stays flat) */
    int size() {
        return entries.size();
    }

    /** The local queue of one lock name. */
    static final class Entry {

        /** Held by the one thread of this JVM that competes for, or holds, the lock in Redis. FIFO. */
        final Semaphore permit = new Semaphore(1, true);

        /** The thread currently waiting in Redis, woken by release notifications. */
        volatile Thread competitor;

        /** The owner token the competitor asks with; a release hands the lock to one token. */
        volatile String competitorToken;

        /** Guarded by the map's per-key lock in compute. */
        int users;
    }
}
