package dev.distlock.spi;

import java.time.Duration;
import java.util.Objects;

import dev.distlock.LockType;

/**
 * One request for a lock, resolved once from {@link dev.distlock.LockOptions} and the configured defaults, and
 * passed unchanged to every attempt a {@link LockStore} makes for it.
 *
 * @param name the full lock name
 * @param type the lock type
 * @param ownerToken the unguessable token of this acquisition: a store records it as the owner and checks it on
 *        release and renewal; never logged
 * @param waitTime how long the caller waits in all
 * @param leaseTime the lease: renewed by the watchdog when {@code watchdog} is true, else fixed
 * @param watchdog whether the lease is renewed while the lock is held
 */
public record LockRequest(String name, LockType type, String ownerToken, Duration waitTime, Duration leaseTime,
        boolean watchdog) {

    /**
     * Checks the values.
     */
    public LockRequest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(ownerToken, "ownerToken");
        Objects.requireNonNull(waitTime, "waitTime");
        Objects.requireNonNull(leaseTime, "leaseTime");
    }

    /** @return true for a {@link LockType#READ} lock, shared with other readers */
    public boolean shared() {
        return type == LockType.READ;
    }

    /** @return the lease in milliseconds */
    public long leaseMillis() {
        return leaseTime.toMillis();
    }

    @Override
    public String toString() {
        // Never the owner token: it is the proof of ownership.
        return "LockRequest[" + name + ", " + type + ", wait=" + waitTime + ", lease=" + leaseTime
                + (watchdog ? " (watchdog)" : " (fixed)") + "]";
    }
}
