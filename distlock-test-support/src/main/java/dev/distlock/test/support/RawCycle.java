package dev.distlock.test.support;

import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.LockSupport;

/**
 * A store's minimal lock cycle without distlock, on the client library its store module uses: the yardstick that
 * the benchmarks' workload R measures beside workload S (distlock on the store), so that distlock's figure per store
 * is its ratio to what the store itself can do. A store's fixture offers it ({@link StoreFixture#rawCycle()}). An uncontended cycle is {@link Node#acquire} + {@link Held#release} of a new name; the hot
 * key is the same calls on one name from several nodes, where a waiter waits as the store's textbook recipe does
 * (polls with {@link #backOff()}, or a watch where the store has one).
 */
public interface RawCycle extends AutoCloseable {

    /** The lease every raw lock is taken with: longer than any measurement, as no raw lock is renewed. */
    long LEASE_MILLIS = 120_000;

    /** @return what one cycle sends, for the report */
    String recipe();

    /** @return a new application node with connections of its own; the caller closes it */
    Node node() throws Exception;

    /** Closes what the cycle opened for all its nodes (a table's pool), not the server. */
    @Override
    default void close() {
    }

    /** One application node's client. */
    interface Node extends AutoCloseable {

        /**
         * Takes the lock, waiting as long as it is held.
         *
         * @param name the lock name
         * @return the lease, to release
         */
        Held acquire(String name) throws Exception;

        @Override
        void close() throws Exception;
    }

    /** A lock taken by {@link Node#acquire}. */
    @FunctionalInterface
    interface Held {

        /** Gives the lock back. */
        void release() throws Exception;
    }

    /**
     * The polling waiter's pause: 0.5–1.5 ms. Short, so that a lock held ~50 µs changes hands quickly, jittered so
     * that the waiters of three nodes do not ask in step; the same for every polling store, so that the raw cycles
     * compare with each other.
     */
    static void backOff() {
        LockSupport.parkNanos(TimeUnit.MICROSECONDS.toNanos(500 + ThreadLocalRandom.current().nextLong(1000)));
    }
}
