package dev.distlock.autoconfigure;

import java.time.Duration;

import dev.distlock.OnLeaseLost;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.core.Ordered;

/**
 * Configuration of distlock ({@code distlock.*}). Immutable, validated when bound: an invalid value fails
 * application start-up with a message naming the property.
 *
 * @param enabled {@code false} turns all locking off: annotated methods run without locking and nothing touches
 *        Redis.
 * @param keyPrefix namespace of every Redis key distlock writes (keys start with this prefix and a colon).
 * @param waitTime default time to wait for a lock, for annotations and {@code LockService} calls that leave it
 *        unset; zero tries once.
 * @param leaseTime lease of watchdog-renewed locks; the watchdog renews it every third of this time, so a crashed
 *        holder blocks the lock for at most this long.
 * @param onLeaseLost what the caller sees when a lease was lost while the work ran: {@code log} or {@code throw}.
 * @param commandTimeout bound on every Redis call of the lock path; a slower answer counts as Redis unavailable.
 * @param aspectOrder order of the {@code @DistributedLock} advice; the default runs it outside Spring's
 *        transaction advice so that the transaction commits before the lock is released.
 */
@ConfigurationProperties("distlock")
public record DistlockProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue("distlock") String keyPrefix,
        @DefaultValue("3s") Duration waitTime,
        @DefaultValue("30s") Duration leaseTime,
        @DefaultValue("log") OnLeaseLost onLeaseLost,
        @DefaultValue("2s") Duration commandTimeout,
        @DefaultValue("" + DistlockProperties.DEFAULT_ASPECT_ORDER) int aspectOrder) {

    /**
     * Default order of the lock advice: higher precedence than the transaction advice (whose default order is
     * {@link Ordered#LOWEST_PRECEDENCE}), so the lock is taken before the transaction begins and released after it
     * commits.
     */
    public static final int DEFAULT_ASPECT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    /**
     * Validates the values; the binder reports a failure here against the {@code distlock} prefix.
     */
    public DistlockProperties {
        require(keyPrefix != null && !keyPrefix.isBlank(), "distlock.key-prefix must not be blank");
        require(keyPrefix.indexOf('{') < 0 && keyPrefix.indexOf('}') < 0,
                "distlock.key-prefix must not contain '{' or '}' (they would break Redis Cluster hash tags): "
                        + keyPrefix);
        require(waitTime != null && !waitTime.isNegative(), "distlock.wait-time must not be negative: " + waitTime);
        require(leaseTime != null && !leaseTime.isNegative() && !leaseTime.isZero(),
                "distlock.lease-time must be positive: " + leaseTime);
        require(leaseTime.toMillis() >= 3, "distlock.lease-time must be at least 3ms: " + leaseTime);
        require(commandTimeout != null && !commandTimeout.isNegative() && !commandTimeout.isZero(),
                "distlock.command-timeout must be positive: " + commandTimeout);
        require(onLeaseLost != null, "distlock.on-lease-lost must be log or throw");
    }

    private static void require(boolean condition, String message) {
        if (!condition) {
            throw new IllegalArgumentException(message);
        }
    }
}
