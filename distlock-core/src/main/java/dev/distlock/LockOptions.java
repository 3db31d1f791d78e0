package dev.distlock;

import java.time.Duration;
import java.util.Objects;
import java.util.Optional;
import org.jspecify.annotations.Nullable;

/**
 * Immutable options of one lock request. A field left unset takes the configured {@code distlock.*} default when
 * the lock is taken: an unset wait time is {@code distlock.wait-time}; an unset lease time means a
 * watchdog-renewed lease of {@code distlock.lease-time}, while a set lease time is a fixed lease that is never
 * renewed.
 */
public final class LockOptions {

    private static final LockOptions DEFAULTS = new LockOptions(null, null, LockType.REENTRANT);

    private final @Nullable Duration waitTime;

    private final @Nullable Duration leaseTime;

    private final LockType type;

    private LockOptions(@Nullable Duration waitTime, @Nullable Duration leaseTime, LockType type) {
        if (waitTime != null && waitTime.isNegative()) {
            throw new IllegalArgumentException("waitTime must not be negative: " + waitTime);
        }
        if (leaseTime != null && leaseTime.toMillis() < 1) {
            // Stores count leases in milliseconds: anything shorter would be a lease of 0.
            throw new IllegalArgumentException("leaseTime must be at least 1ms: " + leaseTime);
        }
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
        this.type = Objects.requireNonNull(type, "type");
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
        return new LockOptions(Objects.requireNonNull(waitTime, "waitTime"), leaseTime, type);
    }

    /**
     * @param leaseTime a fixed lease, not renewed by the watchdog; {@code null} for a watchdog-renewed lease
     * @return a copy with that lease
     */
    public LockOptions withLeaseTime(@Nullable Duration leaseTime) {
        return new LockOptions(waitTime, leaseTime, type);
    }

    /**
     * @param type the lock type
     * @return a copy with that type
     */
    public LockOptions withType(LockType type) {
        return new LockOptions(waitTime, leaseTime, type);
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

    @Override
    public boolean equals(Object other) {
        return other instanceof LockOptions o && Objects.equals(waitTime, o.waitTime)
                && Objects.equals(leaseTime, o.leaseTime) && type == o.type;
    }

    @Override
    public int hashCode() {
        return Objects.hash(waitTime, leaseTime, type);
    }

    @Override
    public String toString() {
        return "LockOptions[waitTime=" + (waitTime == null ? "default" : waitTime) + ", leaseTime="
                + (leaseTime == null ? "watchdog" : leaseTime) + ", type=" + type + "]";
    }
}
