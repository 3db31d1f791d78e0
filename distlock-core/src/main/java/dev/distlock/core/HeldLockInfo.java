package dev.distlock.core;

import java.time.Duration;
import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * A snapshot of one lock this instance holds.
 *
 * @param name the lock name
 * @param fencingToken the fencing token of the acquisition
 * @param acquiredAt when it was acquired
 * @param heldFor how long it has been held
 * @param leaseRemaining the lease left as last known to this instance (never the owner token)
 * @param watchdog true when the watchdog renews the lease, false for a fixed lease
 * @param renewals how many times the lease was renewed
 * @param lastRenewalAt when the lease was last renewed, or {@code null} if never
 */
public record HeldLockInfo(String name, long fencingToken, Instant acquiredAt, Duration heldFor,
        Duration leaseRemaining, boolean watchdog, long renewals, @Nullable Instant lastRenewalAt) {
}
