package dev.distlock.autoconfigure;

import java.time.Duration;

import dev.distlock.OnLeaseLost;
import dev.distlock.redis.RedisLockConfig;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.core.Ordered;

/**
 * Configuration of distlock ({@code distlock.*}). Immutable, validated when bound: an invalid value fails
 * application start-up with a message naming the property.
 *
 * @param enabled Whether locking is on. When false, annotated methods run without locking and nothing touches
 *        Redis.
 * @param keyPrefix Namespace of every Redis key distlock writes (keys start with this prefix and a colon).
 * @param waitTime Default time to wait for a lock, for annotations and LockService calls that leave it unset. Zero
 *        tries once.
 * @param leaseTime Lease of watchdog-renewed locks. The watchdog renews it every third of this time, so a crashed
 *        holder blocks the lock for at most this long.
 * @param onLeaseLost What the caller sees when a lease was lost while the work ran: 'log' (default) or 'throw'
 *        (LeaseLostException).
 * @param commandTimeout Bound on every Redis call of the lock path. A slower answer counts as Redis unavailable.
 * @param aspectOrder Order of the @DistributedLock advice. The default runs it outside Spring's transaction advice
 *        so that the transaction commits before the lock is released.
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
     * Validates the values through {@link RedisLockConfig}, whose messages name the property at fault; the binder
     * reports the failure against the {@code distlock} prefix and start-up fails.
     */
    public DistlockProperties {
        toLockConfig(keyPrefix, waitTime, leaseTime, onLeaseLost, commandTimeout);
    }

    /** @return the engine settings these properties describe */
    public RedisLockConfig toLockConfig() {
        return toLockConfig(keyPrefix, waitTime, leaseTime, onLeaseLost, commandTimeout);
    }

    private static RedisLockConfig toLockConfig(String keyPrefix, Duration waitTime, Duration leaseTime,
            OnLeaseLost onLeaseLost, Duration commandTimeout) {
        return new RedisLockConfig(keyPrefix, waitTime, leaseTime, onLeaseLost, commandTimeout,
                RedisLockConfig.defaults().fencingIdleTime());
    }
}
