package dev.distlock.redis;

import java.time.Duration;
import java.util.Objects;

import dev.distlock.OnLeaseLost;

/**
 * Immutable settings of {@link RedisLockService}, validated in the constructor. Messages name the
 * {@code distlock.*} property each setting is bound from, so a bad value in {@code application.yml} fails start-up
 * with the property at fault.
 */
public final class RedisLockConfig {

    private static final RedisLockConfig DEFAULTS = new RedisLockConfig("distlock", Duration.ofSeconds(3),
            Duration.ofSeconds(30), OnLeaseLost.LOG, Duration.ofSeconds(2), Duration.ofDays(1));

    private final String keyPrefix;

    private final Duration waitTime;

    private final Duration leaseTime;

    private final OnLeaseLost onLeaseLost;

    private final Duration commandTimeout;

    private final Duration fencingIdleTime;

    /**
     * @param keyPrefix namespace of every Redis key ({@code distlock.key-prefix})
     * @param waitTime default wait ({@code distlock.wait-time}); zero tries once
     * @param leaseTime watchdog lease ({@code distlock.lease-time}), renewed every third of it
     * @param onLeaseLost what the caller sees after a lost lease ({@code distlock.on-lease-lost})
     * @param commandTimeout bound on each Redis call of the lock path ({@code distlock.command-timeout})
     * @param fencingIdleTime how long a released lock's key keeps its last fencing token; after that Redis drops
     *        it and the next acquisition takes its token from the server clock, which is above every earlier one
     *        (see {@code acquire.lua}), so no key is kept for idle lock names
     */
    public RedisLockConfig(String keyPrefix, Duration waitTime, Duration leaseTime, OnLeaseLost onLeaseLost,
            Duration commandTimeout, Duration fencingIdleTime) {
        require(keyPrefix != null && !keyPrefix.isBlank(), "distlock.key-prefix must not be blank");
        require(keyPrefix.indexOf('{') < 0 && keyPrefix.indexOf('}') < 0,
                "distlock.key-prefix must not contain '{' or '}' (they would break Redis Cluster hash tags): "
                        + keyPrefix);
        require(waitTime != null && !waitTime.isNegative(), "distlock.wait-time must not be negative: " + waitTime);
        require(leaseTime != null && leaseTime.toMillis() >= 3,
                "distlock.lease-time must be positive (at least 3ms): " + leaseTime);
        require(onLeaseLost != null, "distlock.on-lease-lost must be log or throw");
        require(commandTimeout != null && commandTimeout.toMillis() >= 1,
                "distlock.command-timeout must be positive: " + commandTimeout);
        require(fencingIdleTime != null && fencingIdleTime.toMillis() >= 1,
                "fencingIdleTime must be positive: " + fencingIdleTime);
        this.keyPrefix = keyPrefix;
        this.waitTime = waitTime;
        this.leaseTime = leaseTime;
        this.onLeaseLost = onLeaseLost;
        this.commandTimeout = commandTimeout;
        this.fencingIdleTime = fencingIdleTime;
    }

    /** @return the documented defaults of every {@code distlock.*} property */
    public static RedisLockConfig defaults() {
        return DEFAULTS;
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }

    /** @param keyPrefix the key prefix @return a copy with it */
    public RedisLockConfig withKeyPrefix(String keyPrefix) {
        return new RedisLockConfig(keyPrefix, waitTime, leaseTime, onLeaseLost, commandTimeout, fencingIdleTime);
    }

    /** @param waitTime the default wait @return a copy with it */
    public RedisLockConfig withWaitTime(Duration waitTime) {
        return new RedisLockConfig(keyPrefix, waitTime, leaseTime, onLeaseLost, commandTimeout, fencingIdleTime);
    }

    /** @param leaseTime the watchdog lease @return a copy with it */
    public RedisLockConfig withLeaseTime(Duration leaseTime) {
        return new RedisLockConfig(keyPrefix, waitTime, leaseTime, onLeaseLost, commandTimeout, fencingIdleTime);
    }

    /** @param onLeaseLost the lease-lost policy @return a copy with it */
    public RedisLockConfig withOnLeaseLost(OnLeaseLost onLeaseLost) {
        return new RedisLockConfig(keyPrefix, waitTime, leaseTime, onLeaseLost, commandTimeout, fencingIdleTime);
    }

    /** @param commandTimeout the Redis call bound @return a copy with it */
    public RedisLockConfig withCommandTimeout(Duration commandTimeout) {
        return new RedisLockConfig(keyPrefix, waitTime, leaseTime, onLeaseLost, commandTimeout, fencingIdleTime);
    }

    /** @param fencingIdleTime how long a free lock keeps its last fencing token @return a copy with it */
    public RedisLockConfig withFencingIdleTime(Duration fencingIdleTime) {
        return new RedisLockConfig(keyPrefix, waitTime, leaseTime, onLeaseLost, commandTimeout, fencingIdleTime);
    }

    /** @return the key prefix */
    public String keyPrefix() {
        return keyPrefix;
    }

    /** @return the default wait time */
    public Duration waitTime() {
        return waitTime;
    }

    /** @return the watchdog lease */
    public Duration leaseTime() {
        return leaseTime;
    }

    /** @return the lease-lost policy */
    public OnLeaseLost onLeaseLost() {
        return onLeaseLost;
    }

    /** @return the bound on each Redis call */
    public Duration commandTimeout() {
        return commandTimeout;
    }

    /** @return how long a free lock keeps its last fencing token */
    public Duration fencingIdleTime() {
        return fencingIdleTime;
    }

    @Override
    public boolean equals(Object other) {
        return other instanceof RedisLockConfig o && keyPrefix.equals(o.keyPrefix) && waitTime.equals(o.waitTime)
                && leaseTime.equals(o.leaseTime) && onLeaseLost == o.onLeaseLost
                && commandTimeout.equals(o.commandTimeout) && fencingIdleTime.equals(o.fencingIdleTime);
    }

    @Override
    public int hashCode() {
        return Objects.hash(keyPrefix, waitTime, leaseTime, onLeaseLost, commandTimeout, fencingIdleTime);
    }

    @Override
    public String toString() {
        return "RedisLockConfig[keyPrefix=" + keyPrefix + ", waitTime=" + waitTime + ", leaseTime=" + leaseTime
                + ", onLeaseLost=" + onLeaseLost + ", commandTimeout=" + commandTimeout + ", fencingIdleTime="
                + fencingIdleTime + "]";
    }
}
