package dev.distlock.spi;

import dev.distlock.LockType;

/**
 * How a request holds its name, derived once from the user's {@link LockType} and permits: the only form a store
 * sees, so that no store re-derives it.
 */
public sealed interface LockMode permits LockMode.Exclusive, LockMode.Shared, LockMode.Permits {

    /** The one exclusive mode. */
    Exclusive EXCLUSIVE = new Exclusive();

    /** The one shared mode. */
    Shared SHARED = new Shared();

    /**
     * @param type the user's lock type
     * @param permits the request's permits, at least 1
     * @return {@link Shared} for {@link LockType#READ} (with 1 permit), {@link Permits} for more than one permit,
     *         else {@link Exclusive} (a {@link LockType#WRITE} lock, a reentrant or a fair one)
     * @throws IllegalArgumentException for fewer than 1 permit, or several permits of a read lock
     */
    static LockMode of(LockType type, int permits) {
        if (permits < 1 || (permits > 1 && type == LockType.READ)) {
            throw new IllegalArgumentException("permits must be at least 1, and 1 for a read lock: " + permits);
        }
        if (permits > 1) {
            return new Permits(permits);
        }
        return type == LockType.READ ? SHARED : EXCLUSIVE;
    }

    /**
     * One holder at a time: a lock of type {@link LockType#REENTRANT}, {@link LockType#FAIR} or the writer of a
     * read/write lock ({@link LockType#WRITE}). A writer excludes readers as well. Reentrancy is the engine's: a
     * store never sees a second request for a lock its JVM already holds.
     */
    record Exclusive() implements LockMode {
    }

    /**
     * A reader of a read/write lock: held together with other readers, never with a writer. A store lets a reader in
     * while no writer holds the name and, where it queues waiters, no writer waits before it.
     */
    record Shared() implements LockMode {
    }

    /**
     * One of {@code n} permits of the name: held together with at most {@code n - 1} other holders. Only for a store
     * whose {@link StoreTraits#permits()} is true. Such a store grants it while fewer hold the name and no earlier
     * waiter of the name is served first (arrival order, where the store queues waiters); releases, renews and
     * cancels it per owner token like a lock; issues tokens that increase per name in grant order across all the
     * holders; and fails an attempt with {@link LockRequest#permitsMismatch} when the name is held or awaited with
     * another number of permits (1 for a lock).
     * <p>
     * Grant order is the store's: the order in which it gives the name to requests. Two waiters let in by one release
     * may return from their attempts in either order; what every store keeps, and the contract suite checks, is that
     * a request made after a grant was returned gets a higher token than that grant.
     *
     * @param n how many may hold the name at once, at least 2
     */
    record Permits(int n) implements LockMode {

        /** Checks the value. */
        public Permits {
            if (n < 2) {
                throw new IllegalArgumentException("LockMode.Permits needs at least 2 permits (1 is Exclusive): " + n);
            }
        }
    }
}
