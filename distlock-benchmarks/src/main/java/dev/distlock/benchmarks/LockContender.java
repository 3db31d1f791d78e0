package dev.distlock.benchmarks;

import java.util.ArrayDeque;
import java.util.Deque;
import java.util.List;

import java.time.Duration;

/**
 * One lock implementation under test: the small adapter each contender implements, so that every workload runs the
 * same code against every library.
 */
public interface LockContender {

    /** @return the short name used in tables, e.g. {@code Redisson} */
    String name();

    /** @return the library and version, e.g. {@code org.redisson:redisson 4.7.0} */
    String version();

    /**
     * Creates a new client instance with its own connections, as a separate application node would have.
     * Library defaults are kept; only {@code watchdogLease} is applied when it is not null.
     *
     * @param target the Redis server
     * @param watchdogLease the lease of watchdog-renewed locks (workload E), or null for the library default
     * @return the client; closed by the caller
     * @throws Exception when the client cannot be created
     */
    LockClient connect(RedisTarget target, Duration watchdogLease) throws Exception;

    /** @return true when the contender renews leases while a lock is held (workload E applies) */
    default boolean renewsLeases() {
        return true;
    }

    /**
     * @return true when a lock can be held past the call that took it ({@link LockClient#acquire}); false for
     *         the annotation, whose lock lives exactly as long as the annotated call (workload E needs handles)
     */
    default boolean holdsHandles() {
        return true;
    }

    /** @return true when the library has permits (a semaphore with leases, workload P) */
    default boolean hasPermits() {
        return false;
    }

    /** @return true when the library locks several names at once itself (workload M) */
    default boolean hasMultiLock() {
        return false;
    }

    /** A client instance of a contender. */
    interface LockClient extends AutoCloseable {

        /**
         * Acquires the lock, waiting as the library waits (up to about a minute), with a watchdog-renewed lease
         * where the library has one.
         *
         * @param name the lock name
         * @return the held lock
         * @throws Exception when not acquired
         */
        Held acquire(String name) throws Exception;

        /**
         * Runs {@code work} while holding the lock: how every workload but E takes a lock, so that a contender
         * that only offers a scope (the annotation) runs the same loops as the handle-based ones.
         *
         * @param name the lock name
         * @param work what runs inside the lock
         * @throws Exception when not acquired
         */
        default void runLocked(String name, Runnable work) throws Exception {
            Held held = acquire(name);
            try {
                work.run();
            }
            finally {
                held.release();
            }
        }

        /**
         * Runs {@code work} while holding every lock of {@code names} (workload M). This default takes them one
         * after the other in the given order and releases them in reverse: what an application does without a
         * multi-lock, and the baseline M compares a library's own multi-lock with.
         *
         * @param names the lock names
         * @param work what runs inside the locks
         * @throws Exception when not acquired
         */
        default void runLockedOneByOne(List<String> names, Runnable work) throws Exception {
            Deque<Held> held = new ArrayDeque<>();
            try {
                for (String name : names) {
                    held.push(acquire(name));
                }
                work.run();
            }
            finally {
                while (!held.isEmpty()) {
                    held.pop().release();
                }
            }
        }

        /**
         * Runs {@code work} while holding every lock of {@code names}, taken with the library's own multi-lock
         * (workload M).
         *
         * @param names the lock names
         * @param work what runs inside the locks
         * @throws Exception when not acquired
         * @throws UnsupportedOperationException when the library has no multi-lock ({@link #hasMultiLock()})
         */
        default void runLockedAll(List<String> names, Runnable work) throws Exception {
            throw new UnsupportedOperationException("no multi-lock");
        }

        /**
         * Runs {@code work} while holding one of the name's permits (workload P).
         *
         * @param name the name
         * @param permits how many holders the name has at most
         * @param work what runs inside
         * @throws Exception when not acquired
         * @throws UnsupportedOperationException when the library has no permits ({@link #hasPermits()})
         */
        default void runWithPermit(String name, int permits, Runnable work) throws Exception {
            throw new UnsupportedOperationException("no permits");
        }

        /**
         * @param name a lock name
         * @return the Redis key that exists while the lock is held
         */
        String redisKey(String name);

        @Override
        void close() throws Exception;
    }

    /** A held lock. */
    interface Held {

        /** Releases the lock (from the thread that acquired it). */
        void release();

        /** @return what the library itself says about the lock still being held */
        default boolean stillHeld() {
            return true;
        }
    }
}
