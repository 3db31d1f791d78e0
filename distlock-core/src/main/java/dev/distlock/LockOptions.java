package dev.distlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Immutable options of one lock request. A field left unset takes the configured {@code distlock.*} default when
 * the lock is taken: an unset wait time is {@code distlock.wait-time}; an unset lease time means a
 * watchdog-renewed lease of {@code distlock.lease-time}, while a set lease time is a fixed lease that is never
 * renewed. A hold-at-least time keeps the lock after an earlier unlock, unrenewed, until that long after it was
 * acquired.
 */
public final class LockOptions {

    private static final LockOptions DEFAULTS = new LockOptions(null, null, LockType.REENTRANT, Duration.ZERO, 1,
            null);

    private final @Nullable Duration waitTime;

    private final @Nullable Duration leaseTime;

    private final LockType type;

    private final Duration holdAtLeast;

    private final int permits;

    private final @Nullable OnLeaseLost onLeaseLost;

    private LockOptions(@Nullable Duration waitTime, @Nullable Duration leaseTime, LockType type,
            Duration holdAtLeast, int permits, @Nullable OnLeaseLost onLeaseLost) {
        if (waitTime != null && waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime must not be negative: " + waitTime);
        }
        if (leaseTime != null && leaseTime.toMillis() < 1) {
            // Stores count leases in milliseconds: anything shorter would be a lease of 0.
            throw new IllegalArgumentException("leaseTime must be at least 1ms: " + leaseTime);
        }
        if (holdAtLeast.isNegative()) {
            throw new IllegalArgumentException("holdAtLeast must not be negative: " + holdAtLeast);
        }
        if (leaseTime != null && holdAtLeast.compareTo(leaseTime) > 0) {
            // The fixed lease would end first: the lock could not be held that long.
            throw new IllegalArgumentException("holdAtLeast (" + holdAtLeast + ") must not be longer than the fixed "
                    + "leaseTime (" + leaseTime + ")");
        }
        if (permits < 1) {
            throw new IllegalArgumentException("permits must be at least 1: " + permits);
        }
        if (permits > 1 && (type == LockType.READ || type == LockType.WRITE)) {
            // A read/write lock already decides who shares it; permits would say otherwise.
            throw new IllegalArgumentException("permits (" + permits + ") need type REENTRANT or FAIR, not " + type);
        }
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
        this.type = Objects.requireNonNull(type, "type");
        this.holdAtLeast = holdAtLeast;
        this.permits = permits;
        this.onLeaseLost = onLeaseLost;
    }

    /** @return options with every field unset and type {@link LockType#REENTRANT} */
    public static LockOptions defaults() {
        return DEFAULTS;
    }

    /**
     * @param waitTime how long to wait for the lock; zero tries once
     * @return a copy with that wait time
     */
    public LockOptions withWaitTime(Duration waitTime) {
        return new LockOptions(Objects.requireNonNull(waitTime, "waitTime"), leaseTime, type, holdAtLeast, permits,
                onLeaseLost);
    }

    /**
     * @param leaseTime a fixed lease, not renewed by the watchdog; {@code null} for a watchdog-renewed lease
     * @return a copy with that lease
     */
    public LockOptions withLeaseTime(@Nullable Duration leaseTime) {
        return new LockOptions(waitTime, leaseTime, type, holdAtLeast, permits, onLeaseLost);
    }

    /**
     * @param type the lock type
     * @return a copy with that type
     */
    public LockOptions withType(LockType type) {
        return new LockOptions(waitTime, leaseTime, type, holdAtLeast, permits, onLeaseLost);
    }

    /**
     * Keeps the lock after an unlock that comes earlier, until at least that long after it was acquired (a
     * scheduled job that must not run again on another instance within that time, whatever the instances' clocks
     * say). The unlock returns at once; the watchdog stops renewing then, and the lock is released in the store
     * when the time is up. A watchdog lease is at least that long, so the lock stays held that long also when
     * the instance dies after the unlock (with a store whose leases expire). {@link Duration#ZERO} (the default)
     * releases at the unlock.
     *
     * @param holdAtLeast how long after the acquisition the lock is held at least; not longer than a fixed lease
     * @return a copy with that time
     */
    public LockOptions withHoldAtLeast(Duration holdAtLeast) {
        return new LockOptions(waitTime, leaseTime, type, Objects.requireNonNull(holdAtLeast, "holdAtLeast"),
                permits, onLeaseLost);
    }

    /**
     * Lets up to that many holders own the name at once (a semaphore with leases; 1, the default, is a lock). Every
     * holder has its own lease, handle and fencing token; the tokens of a name still increase in the store's grant
     * order (two waiters let in at once may return in either order, but a call made after a grant returned always
     * gets a higher token), and a crashed holder's permit is free again within its lease. Every caller of a name
     * must ask with the same number while anyone holds or waits for it: a caller with another number gets
     * {@link LockException} naming both.
     * Only with type {@link LockType#REENTRANT} or {@link LockType#FAIR}.
     *
     * @param permits how many holders at once, at least 1
     * @return a copy with that number of permits
     */
    public LockOptions withPermits(int permits) {
        return new LockOptions(waitTime, leaseTime, type, holdAtLeast, permits, onLeaseLost);
    }

    /**
     * What this call's caller sees when the lease is lost while the work runs, and whether the work is stopped then
     * ({@link OnLeaseLost#INTERRUPT}).
     *
     * @param onLeaseLost the policy; {@code null} for {@code distlock.on-lease-lost}
     * @return a copy with that policy
     */
    public LockOptions withOnLeaseLost(@Nullable OnLeaseLost onLeaseLost) {
        return new LockOptions(waitTime, leaseTime, type, holdAtLeast, permits, onLeaseLost);
    }

    /** @return the wait time, or empty for {@code distlock.wait-time} */
    public Optional<Duration> waitTime() {
        return Optional.ofNullable(waitTime);
    }

    /** @return the fixed lease, or empty for a watchdog-renewed lease of {@code distlock.lease-time} */
    public Optional<Duration> leaseTime() {
        return Optional.ofNullable(leaseTime);
    }

    /** @return the lock type */
    public LockType type() {
        return type;
    }

    /** @return how long after its acquisition the lock is held at least; zero to release at the unlock */
    public Duration holdAtLeast() {
        return holdAtLeast;
    }

    /** @return how many holders may own the name at once; 1 for a lock */
    public int permits() {
        return permits;
    }

    /** @return the lease-lost policy, or empty for {@code distlock.on-lease-lost} */
    public Optional<OnLeaseLost> onLeaseLost() {
        return Optional.ofNullable(onLeaseLost);
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof LockOptions o && Objects.equals(waitTime, o.waitTime)
                && Objects.equals(leaseTime, o.leaseTime) && type == o.type
                && holdAtLeast.equals(o.holdAtLeast) && permits == o.permits && onLeaseLost == o.onLeaseLost;
    }

    @Override
    public int hashCode() {
        return Objects.hash(waitTime, leaseTime, type, holdAtLeast, permits, onLeaseLost);
    }

    @Override
    public String toString() {
        return "LockOptions[waitTime=" + (waitTime == null ? "default" : waitTime) + ", leaseTime="
                + (leaseTime == null ? "watchdog" : leaseTime) + ", type=" + type
                + (holdAtLeast.isZero() ? "" : ", holdAtLeast=" + holdAtLeast)
                + (permits == 1 ? "" : ", permits=" + permits)
                + (onLeaseLost == null ? "" : ", onLeaseLost=" + onLeaseLost) + "]";
    }
}
