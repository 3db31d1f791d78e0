package dev.distlock.core;

import java.time.Duration;

/**
 * How long a lease can be counted on by the node that holds it: the lease less a margin for the clock rates of
 * this JVM and the store differing (1 % + 2 ms, as Redlock allows for drift; at most a tenth of very short leases).
 * The one place this margin is written: the engine's lease deadlines and the quorum store's validity both use it.
 */
public final class ClockDrift {

    private ClockDrift() {
    }

    /**
     * @param lease the lease granted by the store
     * @return how long of it this JVM may count on, measured from before the request was sent
     */
    public static long validNanos(Duration lease) {
        long leaseNanos = lease.toNanos();
        return leaseNanos - Math.min(leaseNanos / 100 + 2_000_000L, leaseNanos / 10);
    }

    /**
     * @param storeMicros time that passed on the store's clock, in µs
     * @return the least time that passed here meanwhile, in ns: the store's time less the 1 % its clock may run
     *         faster than this JVM's
     */
    public static long localNanosAtLeast(long storeMicros) {
        return storeMicros * 1000 - storeMicros * 10;
    }

    /**
     * @param sentNanos {@link System#nanoTime()} before the request that granted or renewed the lease was sent
     * @param lease the lease
     * @return the {@link System#nanoTime()} until which the lease may be counted on
     */
    public static long deadline(long sentNanos, Duration lease) {
        return sentNanos + validNanos(lease);
    }
}
