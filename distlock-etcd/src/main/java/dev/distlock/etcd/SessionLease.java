package dev.distlock.etcd;

import java.util.concurrent.ScheduledFuture;

import org.jspecify.annotations.Nullable;

/**
 * One etcd lease that the keys of many watchdog requests share, kept alive by {@link SessionLeases} for as long as
 * the store lives: the etcd counterpart of a ZooKeeper session. Its keys last while it does, so a crashed
 * instance's locks free within its TTL, and no holder renews anything of its own.
 */
final class SessionLease {

    /** The etcd lease id. */
    final long id;

    /** The TTL asked for, in whole seconds: the key of this lease in {@link SessionLeases}. */
    final long requestedTtlSeconds;

    /**
     * The {@link System#nanoTime()} until which the lease is certainly alive in etcd: the send time of the last
     * grant or keep-alive that etcd confirmed, plus the TTL it confirmed, less {@link dev.distlock.core.ClockDrift}'s
     * margin. etcd cannot have expired it earlier, since it counts the TTL from when it received that request.
     */
    private volatile long validUntilNanos;

    private volatile boolean lost;

    /** The check that declares the lease lost at {@link #validUntilNanos} unless a keep-alive moved it on. */
    volatile @Nullable ScheduledFuture<?> expiryCheck;

    /** The next keep-alive. */
    volatile @Nullable ScheduledFuture<?> nextKeepAlive;

    SessionLease(long id, long requestedTtlSeconds, long validUntilNanos) {
        this.id = id;
        this.requestedTtlSeconds = requestedTtlSeconds;
        this.validUntilNanos = validUntilNanos;
    }

    /** @return whether holders on this lease may count on it now */
    boolean valid() {
        return !lost && System.nanoTime() - validUntilNanos < 0;
    }

    long validUntilNanos() {
        return validUntilNanos;
    }

    /** Moves the end on after a confirmed keep-alive; never back (replies may come out of order). */
    synchronized void confirmedUntil(long nanos) {
        if (nanos - validUntilNanos > 0) {
            validUntilNanos = nanos;
        }
    }

    /** @return true for the one caller that marks it lost */
    synchronized boolean markLost() {
        if (lost) {
            return false;
        }
        lost = true;
        return true;
    }

    boolean lost() {
        return lost;
    }

    @Override
    public String toString() {
        return "SessionLease[" + Long.toHexString(id) + ", ttl=" + requestedTtlSeconds + "s" + (lost ? ", lost" : "")
                + "]";
    }
}
