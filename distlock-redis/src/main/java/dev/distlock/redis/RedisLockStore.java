package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.distlock.LockUnavailableException;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.StoreHealth;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.util.ClassUtils;

/**
 * The Redis {@link LockStore}, on any Spring Data Redis connection factory (so {@code spring.data.redis.*} applies:
 * standalone, Sentinel, Cluster, password, ACL user, TLS).
 * <ul>
 * <li>An attempt is one {@code EVALSHA} of {@code acquire.lua}: ownership, lease and fencing token in one atomic
 * step; a refused caller that will wait is queued in arrival order. A release is one owner-checked {@code EVALSHA}
 * of {@code release.lua}; when someone waits it reserves the lock for the longest-waiting one and publishes that on
 * the release channel ({@link ReleaseSubscriber}).</li>
 * <li>Renewals are batched ({@link RedisRenewals}).</li>
 * <li>Replica acknowledgement ({@link MinReplicas}, {@code auto} by default): on a master with replicas, an acquire
 * returns, and a renewal counts, only once a replica acknowledged the write ({@code WAIT} on the write's own
 * connection, {@link RedisNode}); a master without replicas costs nothing more.</li>
 * <li>Every call is bounded by {@code distlock.command-timeout}. An attempt whose reply did not come in time is
 * undone by a release sent after it, so an orphan never holds the lock for a whole lease.</li>
 * </ul>
 */
public class RedisLockStore implements LockStore {

    /**
     * How long a released lock that someone waits for stays reserved for that waiter. Long enough for a
     * notification and one round trip on a busy machine; a waiter that is gone costs this once.
     */
    static final long HANDOFF_WINDOW_MILLIS = 100;

    private static final Logger log = LoggerFactory.getLogger(RedisLockStore.class);

    private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
            RedisLockStore.class.getClassLoader());

    private static final byte[] CANCEL = { 'c' };

    private static final byte[] FIRST = { '0' };

    private static final byte[] RETRY = { '1' };

    private static final byte[] HANDOFF_WINDOW = LuaScript.arg(HANDOFF_WINDOW_MILLIS);

    private final RedisLockConfig config;

    private final RedisRunner runner;

    /**
     * Where acquires go: the same runner, or with replica acknowledgement one of their own, so that a {@code WAIT}
     * blocks no renewal or release behind it.
     */
    private final RedisRunner acquires;

    private final ReleaseSubscriber subscriber;

    private final RedisRenewals renewals;

    private final byte[] channel;

    private final long timeoutNanos;

    /** Whether lock writes wait for replicas ({@code distlock.replication.min-replicas} not 0, on Lettuce). */
    private final boolean acknowledging;

    /**
     * @param connectionFactory the application's connection factory ({@code spring.data.redis.*})
     * @param config the settings
     */
    public RedisLockStore(RedisConnectionFactory connectionFactory, RedisLockConfig config) {
        this.config = config;
        boolean lettuce = LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory;
        MinReplicas minReplicas = config.minReplicas();
        if (!lettuce && !minReplicas.isOff()) {
            if (!minReplicas.auto()) {
                throw new IllegalStateException("distlock.replication.min-replicas=" + minReplicas
                        + " needs the Lettuce client: WAIT must follow the lock write on the same connection, which "
                        + "a pooled client does not promise; use Lettuce or set it to 0");
            }
            log.warn("distlock.replication.min-replicas=auto waits for no replica acknowledgement on this Redis "
                    + "client ({}): WAIT must follow the lock write on the same connection, which only the Lettuce "
                    + "client promises. A lock written just before a failover can be lost (and is reported); use "
                    + "Lettuce for acknowledged locks, or set the property to 0 to silence this warning",
                    connectionFactory.getClass().getSimpleName());
        }
        this.acknowledging = lettuce && !minReplicas.isOff();
        this.runner = lettuce ? new LettuceRunner((LettuceConnectionFactory) connectionFactory,
                config.commandTimeout()) : new ConnectionRunner(connectionFactory, config.commandTimeout());
        this.acquires = !acknowledging ? runner
                : new LettuceRunner((LettuceConnectionFactory) connectionFactory, config.commandTimeout());
        this.channel = LockKeys.channel(config.keyPrefix());
        this.subscriber = new ReleaseSubscriber(connectionFactory, channel, HANDOFF_WINDOW_MILLIS);
        this.timeoutNanos = config.commandTimeout().toNanos();
        this.renewals = new RedisRenewals(runner, config, acknowledging);
    }

    /** @return the settings */
    public RedisLockConfig config() {
        return config;
    }

    /**
     * Checks that the Redis user may use the release channel (a Redis 7 ACL user has no channel rights unless
     * granted: every contended release would fail), then subscribes to it. Redis being unreachable does not fail
     * the start: locking then fails closed per call until it is back.
     *
     * @throws IllegalStateException when the user lacks the channel permission, naming it
     */
    @Override
    public void start(StoreEvents events) {
        subscriber.checkPermission(runner, timeoutNanos);
        subscriber.start(events);
    }


    /** @return a {@code PING} that opens the connection, so that the first lock call does not wait for it */
    CompletableFuture<String> connect() {
        return runner.ping();
    }

    /** @return whether release notifications are subscribed (for tests) */
    boolean isSubscribed() {
        return subscriber.isSubscribed();
    }

    @Override
    public Attempt attempt(LockRequest request, long remainingWaitMillis, boolean retry) {
        LockKeys keys = LockKeys.of(config.keyPrefix(), request.name());
        if (acknowledging) {
            return attemptAcknowledged(request, keys, remainingWaitMillis, retry);
        }
        CompletableFuture<Object> reply = acquireAsync(request, keys, remainingWaitMillis, retry);
        long value;
        try {
            value = (Long) await(reply, "acquire '" + request.name() + "'", timeoutNanos);
        }
        catch (LockUnavailableException ex) {
            // The acquire may still run (or have run): undo it strictly after it, on the same path.
            reply.handle((result, error) -> cancelAsync(request, keys));
            throw ex;
        }
        return value > 0 ? Attempt.acquired(value) : Attempt.busy(-value);
    }

    /**
     * An acquire whose write must reach replicas: the script and, when the master has replicas to wait for, a
     * {@code WAIT} right behind it (same round trip) on the master's own connection. A master without replicas
     * (with {@code auto}) costs nothing more than the script once its replica count is known.
     */
    private Attempt attemptAcknowledged(LockRequest request, LockKeys keys, long remainingWaitMillis,
            boolean retry) {
        long deadline = System.nanoTime() + timeoutNanos;
        RedisNode node = (RedisNode) await(acquires.node(keys.lock), "reach the master of lock '" + request.name()
                + "'", timeoutNanos);
        int online = (Integer) await(node.onlineReplicas(), "list the replicas of the master of lock '"
                + request.name() + "'", Math.max(0, deadline - System.nanoTime()));
        int required = config.minReplicas().required(online);
        CompletableFuture<Object> reply = node.eval(LuaScript.ACQUIRE, keys.all(), acquireArgs(request,
                remainingWaitMillis, retry));
        // Sent right behind the script (same round trip): returns once the replicas have the lock write.
        CompletableFuture<Long> acknowledged = required == 0 ? null
                : node.waitForReplicas(required, config.replicationTimeout().toMillis());
        long value;
        try {
            value = (Long) await(reply, "acquire '" + request.name() + "'", Math.max(0, deadline - System.nanoTime()));
            if (value > 0 && acknowledged != null) {
                awaitReplicas(acknowledged, request, required);
            }
        }
        catch (LockUnavailableException ex) {
            // The acquire may still run (or have run): undo it strictly after it.
            reply.handle((result, error) -> cancelAsync(request, keys));
            throw ex;
        }
        return value > 0 ? Attempt.acquired(value) : Attempt.busy(-value);
    }

    /**
     * Sends one acquire. For {@link RedlockStore}, which runs it on several masters at once.
     *
     * @return the reply: the fencing token when positive, else minus the milliseconds to wait
     */
    CompletableFuture<Object> acquireAsync(LockRequest request, LockKeys keys, long remainingWaitMillis,
            boolean retry) {
        return acquires.eval(LuaScript.ACQUIRE, keys.all(), acquireArgs(request, remainingWaitMillis, retry));
    }

    private static byte[][] acquireArgs(LockRequest request, long remainingWaitMillis, boolean retry) {
        return new byte[][] { LuaScript.owner(request), LuaScript.arg(request.leaseMillis()),
                LuaScript.arg(remainingWaitMillis), retry ? RETRY : FIRST, LuaScript.mode(request) };
    }

    /** Fails the acquire unless enough replicas acknowledged it: never a lock that exists only on the master. */
    private void awaitReplicas(CompletableFuture<Long> acknowledged, LockRequest request, int required) {
        long replicas = (Long) await(acknowledged, "acknowledge lock '" + request.name() + "' on replicas",
                timeoutNanos + config.replicationTimeout().toNanos());
        if (replicas < required) {
            throw new LockUnavailableException("Lock '" + request.name() + "' was written to the Redis master but "
                    + "only " + replicas + " of " + required + " replicas acknowledged it (distlock.replication."
                    + "min-replicas=" + config.minReplicas() + ") within "
                    + "distlock.replication.timeout (" + config.replicationTimeout().toMillis()
                    + " ms); the acquire was undone");
        }
    }

    /** Tokens are at least the server clock in microseconds (see {@code acquire.lua}). */
    @Override
    public boolean tokensFollowClock() {
        return true;
    }

    @Override
    public void cancel(LockRequest request) {
        cancelAsync(request, LockKeys.of(config.keyPrefix(), request.name()));
    }

    /** Undoes whatever the request holds or registered, after anything sent before on the acquire path. */
    CompletableFuture<Object> cancelAsync(LockRequest request, LockKeys keys) {
        try {
            return acquires.eval(LuaScript.RELEASE, keys.all(), LuaScript.owner(request), channel, name(request), HANDOFF_WINDOW,
                    CANCEL).whenComplete((result, error) -> {
                        if (error != null) {
                            log.debug("Could not undo a request for lock '{}' (its lease or wait expires on its own)",
                                    request.name(), error);
                        }
                    });
        }
        catch (RuntimeException ex) {
            log.debug("Could not undo a request for lock '{}'", request.name(), ex);
            return CompletableFuture.failedFuture(ex);
        }
    }

    @Override
    public ReleaseResult release(Lease lease) {
        long released = (Long) await(releaseAsync(lease), "release '" + lease.request().name() + "'", timeoutNanos);
        return released == 1 ? ReleaseResult.RELEASED : ReleaseResult.EXPIRED;
    }

    /** @return the reply of the release script: 1 released, 0 not the owner (any more) */
    CompletableFuture<Object> releaseAsync(Lease lease) {
        LockRequest request = lease.request();
        LockKeys keys = LockKeys.of(config.keyPrefix(), request.name());
        return runner.eval(LuaScript.RELEASE, keys.all(), LuaScript.owner(request), channel, name(request),
                HANDOFF_WINDOW, LuaScript.mode(request), LuaScript.arg(lease.fencingToken()));
    }

    @Override
    public List<RenewalResult> renew(List<? extends Lease> leases) {
        return renewals.renew(leases);
    }

    @Override
    public StoreHealth health(Duration timeout) {
        return RedisHealth.check(runner, subscriber, timeout);
    }

    /** Waits for a reply within the timeout. */
    private Object await(CompletableFuture<?> reply, String what, long waitNanos) {
        try {
            return reply.get(waitNanos, TimeUnit.NANOSECONDS);
        }
        catch (TimeoutException ex) {
            // Either connection may be the stuck one (acquires have their own with acknowledgement); each is
            // replaced only when it answered nothing for a while.
            runner.timedOut();
            if (acquires != runner) {
                acquires.timedOut();
            }
            throw new LockUnavailableException("Redis did not answer " + what + " within distlock.command-timeout ("
                    + config.commandTimeout().toMillis() + " ms)", ex);
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
            throw new LockUnavailableException("Redis failed to " + what + ": " + cause.getMessage(), cause);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException("Interrupted while waiting for Redis to " + what, ex);
        }
    }


    private static byte[] name(LockRequest request) {
        return request.name().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        subscriber.close();
        runner.close();
        acquires.close();
    }

    @Override
    public String toString() {
        return "RedisLockStore[" + config.keyPrefix() + "]";
    }
}
