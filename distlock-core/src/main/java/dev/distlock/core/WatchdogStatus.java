package dev.distlock.core;

import java.time.Instant;

import org.jspecify.annotations.Nullable;

/**
 * The state of the lease watchdog.
 *
 * @param running whether the watchdog is scheduled
 * @param renewedLeases how many watchdog leases are held now
 * @param lastRunAt when the watchdog last ran, or {@code null}
 * @param lastSuccessAt when a renewal last succeeded (or there was nothing to renew), or {@code null}
 * @param consecutiveFailures how many runs in a row had renewal errors
 * @param onTime false when a held lease went longer than a renewal period without a successful renewal
 */
public record WatchdogStatus(boolean running, int renewedLeases, @Nullable Instant lastRunAt, @Nullable Instant lastSuccessAt,
        int consecutiveFailures, boolean onTime) {
}
