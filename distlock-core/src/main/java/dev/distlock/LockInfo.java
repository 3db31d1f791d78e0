package dev.distlock;

import java.time.Duration;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Who holds a lock now, as the store tells it, whichever instance holds it ({@link LockService#describe(String)},
 * {@code GET /actuator/distlock/{name}}).
 * <p>
 * A name held in a shared mode (readers of a read/write lock, permits) has several holders: the store describes one
 * of them, the one whose lease ends last (its lease remaining is then how long the name stays held at least), or on
 * a store of session leases (ZooKeeper, etcd) the latest granted.
 *
 * @param name the lock name
 * @param holder the holder's {@code distlock.instance-id}; {@code "unknown"} for a holder of a version of distlock
 *        that did not store it
 * @param fencingToken the holder's fencing token; 0 where the store keeps none for it (a Redis reader)
 * @param leaseRemaining how long the holder's lease still runs, as the store counts it (the watchdog renews a held
 *        lock before it ends); for a ZooKeeper session, the session timeout
 * @param waiters how many requests wait in the store's line for the name, or {@code null} where the store cannot
 *        tell (JDBC polls, it keeps no line; the in-memory store leaves the waiting to the engine)
 */
public record LockInfo(String name, String holder, long fencingToken, Duration leaseRemaining,
        @Nullable Integer waiters) {

    /** The holder of a lock written by a version of distlock that stored no holder identity. */
    public static final String UNKNOWN_HOLDER = "unknown";

    /**
     * Checks the values.
     */
    public LockInfo {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(holder, "holder");
        Objects.requireNonNull(leaseRemaining, "leaseRemaining");
        if (leaseRemaining.isNegative()) {
            leaseRemaining = Duration.ZERO;
        }
    }
}
