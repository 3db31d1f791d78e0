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

    /** Wakes this JVM's competitors for the lock, if any: its holder in Redis was released. */
    void wake(String name) {
        wake(entries.get(name));
        wake(entries.get(name + READ_SUFFIX));
    }

    private static void wake(Entry entry) {
        if (entry != null) {
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

        /** Guarded by the map's per-key lock in compute. */
        int users;
    }
}
