package dev.distlock.core;

import java.time.Duration;
import java.util.Objects;

import dev.distlock.InvalidPropertyException;
import dev.distlock.LockException;
import dev.distlock.OnLeaseLost;
import org.jspecify.annotations.Nullable;

/**
 * Settings of the store-neutral engine, validated in the constructor: a bad value fails with a message naming the
 * {@code distlock.*} property it is bound from.
 *
 * @param waitTime default wait for calls that leave it unset ({@code distlock.wait-time}); zero tries once
 * @param leaseTime the watchdog lease ({@code distlock.lease-time}), renewed every third of it
 * @param onLeaseLost what the caller sees after a lost lease ({@code distlock.on-lease-lost})
 * @param localHandOffMaxCount local hand-offs in a row before the lock goes back to the store
 *        ({@code distlock.local-hand-off.max-count}); 0 turns local hand-off off
 * @param localHandOffMaxTime how long a streak of local hand-offs may last
 *        ({@code distlock.local-hand-off.max-time})
 * @param commandTimeout how long the engine waits for each answer of the store ({@code distlock.command-timeout}):
 *        past it the call fails closed with {@link dev.distlock.LockUnavailableException}
 * @param instanceId the holder identity the stores keep beside each lock this instance takes
 *        ({@code distlock.instance-id}, {@link dev.distlock.LockInfo#holder()}): not blank, no control characters
 */
public record LockConfig(Duration waitTime, Duration leaseTime, OnLeaseLost onLeaseLost, int localHandOffMaxCount,
        Duration localHandOffMaxTime, Duration commandTimeout, String instanceId) {

    private static final LockConfig DEFAULTS = new LockConfig(LockDefaults.WAIT_TIME, LockDefaults.LEASE_TIME,
            LockDefaults.ON_LEASE_LOST, LockDefaults.LOCAL_HAND_OFF_MAX_COUNT, LockDefaults.LOCAL_HAND_OFF_MAX_TIME,
            LockDefaults.COMMAND_TIMEOUT, LockDefaults.instanceId(null));

    /**
     * Settings with the default instance id ({@link LockDefaults#instanceId}).
     *
     * @param waitTime default wait
     * @param leaseTime the watchdog lease
     * @param onLeaseLost what the caller sees after a lost lease
     * @param localHandOffMaxCount local hand-offs in a row
     * @param localHandOffMaxTime how long a streak of local hand-offs may last
     * @param commandTimeout how long the engine waits for each answer of the store
     */
    public LockConfig(Duration waitTime, Duration leaseTime, OnLeaseLost onLeaseLost, int localHandOffMaxCount,
            Duration localHandOffMaxTime, Duration commandTimeout) {
        this(waitTime, leaseTime, onLeaseLost, localHandOffMaxCount, localHandOffMaxTime, commandTimeout,
                DEFAULTS.instanceId);
    }

    /**
     * Validates the settings.
     */
    public LockConfig {
        Objects.requireNonNull(onLeaseLost, "distlock.on-lease-lost must be log, throw or interrupt");
        if (waitTime == null || waitTime.isNegative()) {
            throw new InvalidPropertyException("distlock.wait-time", "must not be negative: " + millis(waitTime));
        }
        if (leaseTime == null || leaseTime.toMillis() < 3) {
            // Renewed every third of it: below 3 ms there is nothing left to renew with.
            throw new InvalidPropertyException("distlock.lease-time", "must be at least 3 ms: " + millis(leaseTime));
        }
        if (localHandOffMaxCount < 0) {
            throw new InvalidPropertyException("distlock.local-hand-off.max-count", "must not be negative: "
                    + localHandOffMaxCount);
        }
        if (localHandOffMaxTime == null || localHandOffMaxTime.isNegative()) {
            throw new InvalidPropertyException("distlock.local-hand-off.max-time", "must not be negative: "
                    + millis(localHandOffMaxTime));
        }
        if (commandTimeout == null || commandTimeout.toMillis() < 1) { // stores count it in ms
            throw new InvalidPropertyException("distlock.command-timeout", "must be at least 1 ms: "
                    + millis(commandTimeout));
        }
        if (instanceId == null || instanceId.isBlank() || instanceId.chars().anyMatch(Character::isISOControl)) {
            throw new InvalidPropertyException("distlock.instance-id", "must be a non-blank text without control "
                    + "characters: '" + instanceId + "'");
        }
    }

    private static String millis(@Nullable Duration duration) {
        return duration == null ? "none" : LockException.millis(duration);
    }

    /** @return the documented defaults */
    public static LockConfig defaults() {
        return DEFAULTS;
    }

    /** @param waitTime the default wait @return a copy with it */
    public LockConfig withWaitTime(Duration waitTime) {
        return new LockConfig(waitTime, leaseTime, onLeaseLost, localHandOffMaxCount, localHandOffMaxTime,
                commandTimeout, instanceId);
    }

    /** @param leaseTime the watchdog lease @return a copy with it */
    public LockConfig withLeaseTime(Duration leaseTime) {
        return new LockConfig(waitTime, leaseTime, onLeaseLost, localHandOffMaxCount, localHandOffMaxTime,
                commandTimeout, instanceId);
    }

    /** @param onLeaseLost the lease-lost policy @return a copy with it */
    public LockConfig withOnLeaseLost(OnLeaseLost onLeaseLost) {
        return new LockConfig(waitTime, leaseTime, onLeaseLost, localHandOffMaxCount, localHandOffMaxTime,
                commandTimeout, instanceId);
    }

    /**
     * @param maxCount local hand-offs in a row before the lock goes back to the store; 0 turns them off
     * @param maxTime how long a streak may last
     * @return a copy with them
     */
    public LockConfig withLocalHandOff(int maxCount, Duration maxTime) {
        return new LockConfig(waitTime, leaseTime, onLeaseLost, maxCount, maxTime, commandTimeout, instanceId);
    }

    /** @param commandTimeout how long each answer of the store is waited for @return a copy with it */
    public LockConfig withCommandTimeout(Duration commandTimeout) {
        return new LockConfig(waitTime, leaseTime, onLeaseLost, localHandOffMaxCount, localHandOffMaxTime,
                commandTimeout, instanceId);
    }

    /** @param instanceId the holder identity kept beside each lock @return a copy with it */
    public LockConfig withInstanceId(String instanceId) {
        return new LockConfig(waitTime, leaseTime, onLeaseLost, localHandOffMaxCount, localHandOffMaxTime,
                commandTimeout, instanceId);
    }
}
