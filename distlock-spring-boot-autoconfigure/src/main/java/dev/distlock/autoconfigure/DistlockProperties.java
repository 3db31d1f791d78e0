package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.List;

import dev.distlock.InvalidPropertyException;
import dev.distlock.LockException;
import dev.distlock.OnLeaseLost;
import dev.distlock.core.LockConfig;
import dev.distlock.core.LockDefaults;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;
import org.springframework.core.Ordered;

/**
 * Configuration of distlock ({@code distlock.*}) that every store shares: the engine's settings and the choice of
 * store. Each store module binds its own settings ({@code distlock.jdbc.*}, for example) with properties of its
 * own. Immutable, validated when bound: an invalid value fails application start-up with a message naming the
 * property. Every engine default is the one of {@link LockDefaults}.
 *
 * @param enabled Whether locking is on. When false, annotated methods run without locking and no store is used.
 * @param keyPrefix Namespace of every key, row or node distlock writes (Redis keys start with this prefix and a
 *        colon).
 * @param waitTime Default time to wait for a lock, for annotations and LockService calls that leave it unset. Zero
 *        tries once.
 * @param leaseTime Lease of watchdog-renewed locks. The watchdog renews it every third of this time, so a crashed
 *        holder blocks the lock for at most this long.
 * @param onLeaseLost What the caller sees when a lease was lost while the work ran: 'log' (default), 'throw'
 *        (LeaseLostException) or 'interrupt' (the work is stopped at the loss, then LeaseLostException).
 * @param commandTimeout Bound on every store call of the lock path. A slower answer counts as the store being
 *        unavailable.
 * @param aspectOrder Order of the @DistributedLock advice. The default runs it outside Spring's transaction advice
 *        so that the transaction commits before the lock is released.
 * @param store The lock store: the id a store module on the class path registers ('redis', 'jdbc', 'zookeeper',
 *        'etcd', 'memcached' for distlock's own; start-up lists those on the class path when it must choose).
 *        Required only when several stores are on the class path.
 * @param localHandOff Handing a held lock straight to the next waiting thread of this instance.
 * @param leader Leadership campaigns the application starts by itself.
 * @param admin What operators may do through the actuator endpoint.
 * @param problemDetails Answering lock timeouts and an unavailable lock store in web requests with HTTP 503.
 * @param instanceId The holder identity the store keeps beside each lock this instance takes, shown by GET
 *        /actuator/distlock/{name}, LockService.describe and lock timeout messages on every instance. The default
 *        names the application ('application' when spring.application.name is unset), the host and the pid.
 */
@ConfigurationProperties("distlock")
public record DistlockProperties(
        @DefaultValue("true") boolean enabled,
        @DefaultValue(LockDefaults.KEY_PREFIX) String keyPrefix,
        @DefaultValue(PropertyDefaults.WAIT_TIME) Duration waitTime,
        @DefaultValue(PropertyDefaults.LEASE_TIME) Duration leaseTime,
        @DefaultValue(PropertyDefaults.ON_LEASE_LOST) OnLeaseLost onLeaseLost,
        @DefaultValue(PropertyDefaults.COMMAND_TIMEOUT) Duration commandTimeout,
        @DefaultValue("" + DistlockProperties.DEFAULT_ASPECT_ORDER) int aspectOrder,
        @Nullable String store,
        @DefaultValue LocalHandOff localHandOff,
        @DefaultValue Leader leader,
        @DefaultValue Admin admin,
        @DefaultValue ProblemDetails problemDetails,
        @Nullable String instanceId) {

    /**
     * Default order of the lock advice: higher precedence than the transaction advice (whose default order is
     * {@link Ordered#LOWEST_PRECEDENCE}), so the lock is taken before the transaction begins and released after it
     * commits.
     */
    public static final int DEFAULT_ASPECT_ORDER = Ordered.LOWEST_PRECEDENCE - 1000;

    /**
     * Validates the engine settings through {@link LockConfig}, whose messages name the property at fault; the
     * binder reports the failure against the {@code distlock} prefix and start-up fails. Store settings are
     * validated by the store's own configuration when its bean is created.
     */
    public DistlockProperties {
        toLockConfig(waitTime, leaseTime, onLeaseLost, localHandOff, commandTimeout,
                instanceId != null ? instanceId : LockConfig.defaults().instanceId());
        if (keyPrefix == null || keyPrefix.isBlank()) {
            throw new InvalidPropertyException("distlock.key-prefix", "must not be blank");
        }
    }

    /** @return the engine settings these properties describe, with the default instance id when none is set */
    public LockConfig toLockConfig() {
        return toLockConfig(LockConfig.defaults().instanceId());
    }

    /**
     * @param defaultInstanceId the instance id when {@code distlock.instance-id} is unset (the auto-configuration
     *        makes it from {@code spring.application.name}, {@link LockDefaults#instanceId})
     * @return the engine settings these properties describe
     */
    public LockConfig toLockConfig(String defaultInstanceId) {
        return toLockConfig(waitTime, leaseTime, onLeaseLost, localHandOff, commandTimeout,
                instanceId != null ? instanceId : defaultInstanceId);
    }

    private static LockConfig toLockConfig(Duration waitTime, Duration leaseTime, OnLeaseLost onLeaseLost,
            LocalHandOff localHandOff, Duration commandTimeout, String instanceId) {
        return new LockConfig(waitTime, leaseTime, onLeaseLost, localHandOff.maxCount(), localHandOff.maxTime(),
                commandTimeout, instanceId);
    }

    /**
     * @param groups Groups this instance campaigns for at start-up: while it leads one, a LeadershipGrantedEvent
     *        has been published for it, and a LeadershipRevokedEvent when that ended.
     */
    public record Leader(@DefaultValue List<String> groups) {

        /**
         * Checks the groups.
         */
        public Leader {
            for (String group : groups) {
                if (group == null || group.isBlank()) {
                    throw new InvalidPropertyException("distlock.leader.groups", "must not contain a blank group: "
                            + groups);
                }
            }
            groups = List.copyOf(groups);
        }
    }

    /**
     * @param forceRelease Whether DELETE /actuator/distlock/{name} may release a lock whoever holds it (audited and
     *        logged). Off by default: the endpoint then answers 403 and changes nothing. The DELETE also needs
     *        management.endpoint.distlock.access=unrestricted (the endpoint is read-only by default) and, with
     *        Spring Security present, an authenticated principal.
     */
    public record Admin(@DefaultValue("false") boolean forceRelease) {
    }

    /**
     * @param enabled Whether a LockTimeoutException, LockUnavailableException, LeaseLostException or
     *        StaleTokenException that reaches Spring MVC or WebFlux is answered with HTTP 503, an RFC 9457 problem
     *        detail (title, a detail for the client that never names the holder or the store's error, the lock names
     *        as 'locks') and a Retry-After header, instead of a 500. Backs off when the application has its
     *        own @ControllerAdvice for a lock timeout or an unavailable store.
     * @param retryAfter What the Retry-After header of those answers tells clients, in whole seconds (rounded up).
     */
    public record ProblemDetails(@DefaultValue("false") boolean enabled, @DefaultValue("1s") Duration retryAfter) {

        /**
         * Checks the retry delay.
         */
        public ProblemDetails {
            if (retryAfter == null || retryAfter.isNegative()) {
                throw new InvalidPropertyException("distlock.problem-details.retry-after", "must not be negative: "
                        + (retryAfter == null ? "none" : LockException.millis(retryAfter)));
            }
        }
    }

    /**
     * @param maxCount Local hand-offs in a row before the lock goes back to the store, so that other instances get
     *        their turn. 0 turns local hand-off off.
     * @param maxTime How long a streak of local hand-offs may last before the lock goes back to the store.
     */
    public record LocalHandOff(@DefaultValue(PropertyDefaults.LOCAL_HAND_OFF_MAX_COUNT) int maxCount,
            @DefaultValue(PropertyDefaults.LOCAL_HAND_OFF_MAX_TIME) Duration maxTime) {
    }
}
