package dev.distlock.actuate;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

import dev.distlock.core.HeldLockInfo;
import dev.distlock.core.HeldLockRegistry;
import dev.distlock.core.WatchdogStatus;
import dev.distlock.metrics.LockTags;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.actuate.endpoint.Access;
import org.springframework.boot.actuate.endpoint.OperationResponseBody;
import org.springframework.boot.actuate.endpoint.annotation.Endpoint;
import org.springframework.boot.actuate.endpoint.annotation.ReadOperation;

/**
 * Actuator endpoint {@code distlock} ({@code /actuator/distlock}): the locks this instance holds now, the
 * leadership groups it leads ({@code leaderOf}) and the state of its lease watchdog. Read-only; it reads the engine's in-memory view and never touches Redis. Lock names
 * (including their keys) appear here, unlike in metrics, because the list is bounded by what this instance holds.
 * <p>
 * Its default access is read-only: the force release of {@link DistlockEndpointWebExtension} needs
 * {@code management.endpoint.distlock.access=unrestricted} on top of {@code distlock.admin.force-release=true}, so
 * that exposing the list over HTTP never exposes the DELETE with it.
 */
@Endpoint(id = "distlock", defaultAccess = Access.READ_ONLY)
public class DistlockEndpoint {

    private final HeldLockRegistry registry;

    private final Clock clock;

    /**
     * @param registry the engine's view of held locks
     */
    public DistlockEndpoint(HeldLockRegistry registry) {
        this(registry, Clock.systemUTC());
    }

    /**
     * @param registry the engine's view of held locks
     * @param clock the clock for "time since" values
     */
    public DistlockEndpoint(HeldLockRegistry registry, Clock clock) {
        if (registry == null || clock == null) {
            throw new IllegalArgumentException("DistlockEndpoint: registry and clock must not be null");
        }
        this.registry = registry;
        this.clock = clock;
    }

    /**
     * @return the held locks, oldest first, with counts and the watchdog state
     */
    @ReadOperation
    public DistlockDescriptor locks() {
        Instant now = clock.instant();
        List<HeldLockInfo> held = registry.heldLocks();
        List<HeldLockDescriptor> locks = held.stream().map(info -> HeldLockDescriptor.of(info, now)).toList();
        Map<String, Integer> byGroup = new TreeMap<>();
        held.forEach(info -> byGroup.merge(LockTags.lockGroup(info.name()), 1, Integer::sum));
        int watchdog = (int) held.stream().filter(HeldLockInfo::watchdog).count();
        return new DistlockDescriptor(new Counts(held.size(), watchdog, held.size() - watchdog, byGroup),
                registry.leaderOf(), WatchdogDescriptor.of(registry.watchdogStatus(), now), locks);
    }

    private static @Nullable Long millisSince(@Nullable Instant then, Instant now) {
        return (then != null) ? Math.max(0, Duration.between(then, now).toMillis()) : null;
    }

    private static @Nullable String iso(@Nullable Instant instant) {
        return (instant != null) ? instant.toString() : null;
    }

    /**
     * The endpoint's answer.
     *
     * @param counts how many locks are held
     * @param leaderOf the leadership groups this instance leads now, sorted
     * @param watchdog the watchdog state
     * @param locks the held locks, oldest first
     */
    public record DistlockDescriptor(Counts counts, List<String> leaderOf, WatchdogDescriptor watchdog,
            List<HeldLockDescriptor> locks)
            implements OperationResponseBody {
    }

    /**
     * Lock counts.
     *
     * @param held all locks held by this instance
     * @param watchdog those whose lease the watchdog renews
     * @param fixedLease those with a fixed lease
     * @param byLock held locks per lock group (the {@code lock} metric tag)
     */
    public record Counts(int held, int watchdog, int fixedLease, Map<String, Integer> byLock) {
    }

    /**
     * One held lock.
     *
     * @param name the full lock name
     * @param fencingToken the fencing token of the acquisition
     * @param acquiredAt when it was acquired (ISO-8601)
     * @param heldForMillis how long it has been held
     * @param leaseRemainingMillis the lease left, as last known to this instance
     * @param watchdog true when the watchdog renews the lease
     * @param renewals how many times the lease was renewed
     * @param lastRenewalAt when the lease was last renewed (ISO-8601), or {@code null}
     * @param sinceLastRenewalMillis time since the last successful renewal, or {@code null} if never renewed
     */
    public record HeldLockDescriptor(String name, long fencingToken, String acquiredAt, long heldForMillis,
            long leaseRemainingMillis, boolean watchdog, long renewals, @Nullable String lastRenewalAt,
            @Nullable Long sinceLastRenewalMillis) {

        static HeldLockDescriptor of(HeldLockInfo info, Instant now) {
            return new HeldLockDescriptor(info.name(), info.fencingToken(), info.acquiredAt().toString(),
                    toMillis(info.heldFor()), toMillis(info.leaseRemaining()), info.watchdog(), info.renewals(),
                    iso(info.lastRenewalAt()), millisSince(info.lastRenewalAt(), now));
        }

        private static long toMillis(Duration duration) {
            return (duration != null) ? Math.max(0, duration.toMillis()) : 0;
        }
    }

    /**
     * The watchdog state.
     *
     * @param running whether the watchdog is scheduled
     * @param renewedLeases how many watchdog leases are held
     * @param lastRunAt when it last ran (ISO-8601), or {@code null}
     * @param lastSuccessAt when a renewal last succeeded (ISO-8601), or {@code null}
     * @param sinceLastSuccessMillis time since then, or {@code null}
     * @param consecutiveFailures runs in a row with renewal errors
     * @param onTime false when a lease went longer than a renewal period without a successful renewal
     */
    public record WatchdogDescriptor(boolean running, int renewedLeases, @Nullable String lastRunAt,
            @Nullable String lastSuccessAt, @Nullable Long sinceLastSuccessMillis, int consecutiveFailures, boolean onTime) {

        static WatchdogDescriptor of(WatchdogStatus status, Instant now) {
            return new WatchdogDescriptor(status.running(), status.renewedLeases(), iso(status.lastRunAt()),
                    iso(status.lastSuccessAt()), millisSince(status.lastSuccessAt(), now),
                    status.consecutiveFailures(), status.onTime());
        }
    }
}
