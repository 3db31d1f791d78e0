package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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

import org.springframework.data.redis.connection.ClusterSlotHashUtil;
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
 * <li>Renewals are batched: one {@code renew.lua} call per {@value #RENEW_BATCH} leases (per hash slot on
 * Cluster), all sent at once.</li>
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

    static final int RENEW_BATCH = 500;

    private static final Logger log = LoggerFactory.getLogger(RedisLockStore.class);

    private static final boolean LETTUCE_PRESENT = ClassUtils.isPresent("io.lettuce.core.RedisClient",
            RedisLockStore.class.getClassLoader());

    private static final byte[] EXCLUSIVE = { 'w' };

    private static final byte[] SHARED = { 'r' };

    private static final byte[] CANCEL = { 'c' };

    private static final byte[] FIRST = { '0' };

    private static final byte[] RETRY = { '1' };

    private static final byte[] HANDOFF_WINDOW = LuaScript.arg(HANDOFF_WINDOW_MILLIS);

    private final RedisLockConfig config;

    private final RedisRunner runner;

    private final ReleaseSubscriber subscriber;

    private final byte[] channel;

    private final long timeoutNanos;

    /**
     * @param connectionFactory the application's connection factory ({@code spring.data.redis.*})
     * @param config the settings
     */
    public RedisLockStore(RedisConnectionFactory connectionFactory, RedisLockConfig config) {
        this.config = config;
        this.runner = LETTUCE_PRESENT && connectionFactory instanceof LettuceConnectionFactory lettuce
                ? new LettuceRunner(lettuce) : new ConnectionRunner(connectionFactory);
        this.channel = LockKeys.channel(config.keyPrefix());
        this.subscriber = new ReleaseSubscriber(connectionFactory, channel, HANDOFF_WINDOW_MILLIS);
        this.timeoutNanos = config.commandTimeout().toNanos();
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
        checkChannelPermission();
        subscriber.start(events);
    }

    private void checkChannelPermission() {
        String channelName = new String(channel, StandardCharsets.UTF_8);
        try {
            runner.publish(channel, new byte[0]).get(timeoutNanos, TimeUnit.NANOSECONDS);
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
            if (String.valueOf(cause.getMessage()).contains("NOPERM")) {
                throw new IllegalStateException("The Redis user configured in spring.data.redis.* may not publish "
                        + "or subscribe to the lock release channel '" + channelName + "' (" + cause.getMessage()
                        + "); grant it with the ACL rule '&" + channelName + "' (or 'allchannels')", cause);
            }
            log.warn("Could not check the lock release channel permission, Redis is not reachable: {}",
                    cause.getMessage());
        }
        catch (TimeoutException ex) {
            log.warn("Could not check the lock release channel permission within distlock.command-timeout");
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** @return whether release notifications are subscribed (for tests) */
    boolean isSubscribed() {
        return subscriber.isSubscribed();
    }

    @Override
    public Attempt attempt(LockRequest request, long remainingWaitMillis, boolean retry) {
        LockKeys keys = LockKeys.of(config.keyPrefix(), request.name());
        CompletableFuture<Object> reply = runner.eval(LuaScript.ACQUIRE, keys.all(), owner(request),
                LuaScript.arg(request.leaseMillis()), LuaScript.arg(remainingWaitMillis), retry ? RETRY : FIRST,
                request.shared() ? SHARED : EXCLUSIVE);
        long value;
        try {
            value = (Long) await(reply, "acquire '" + request.name() + "'");
        }
        catch (LockUnavailableException ex) {
            // The acquire may still run (or have run): undo it strictly after it, on the same path.
            reply.handle((result, error) -> cancelAsync(request, keys));
            throw ex;
        }
        return value > 0 ? Attempt.acquired(value) : Attempt.busy(-value);
    }

    @Override
    public void cancel(LockRequest request) {
        cancelAsync(request, LockKeys.of(config.keyPrefix(), request.name()));
    }

    private CompletableFuture<Object> cancelAsync(LockRequest request, LockKeys keys) {
        try {
            return runner.eval(LuaScript.RELEASE, keys.all(), owner(request), channel, name(request), HANDOFF_WINDOW,
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
        LockRequest request = lease.request();
        LockKeys keys = LockKeys.of(config.keyPrefix(), request.name());
        CompletableFuture<Object> reply = runner.eval(LuaScript.RELEASE, keys.all(), owner(request), channel,
                name(request), HANDOFF_WINDOW, request.shared() ? SHARED : EXCLUSIVE,
                LuaScript.arg(lease.fencingToken()));
        long released = (Long) await(reply, "release '" + request.name() + "'");
        return released == 1 ? ReleaseResult.RELEASED : ReleaseResult.EXPIRED;
    }

    @Override
    public List<RenewalResult> renew(List<? extends Lease> leases) {
        long deadline = System.nanoTime() + timeoutNanos;
        List<List<Lease>> batches = batches(leases);
        List<CompletableFuture<Object>> replies = new ArrayList<>(batches.size());
        for (List<Lease> batch : batches) {
            byte[][] keys = new byte[2 * batch.size()][];
            byte[][] args = new byte[2 * batch.size() + 1][];
            args[0] = LuaScript.arg(batch.get(0).request().leaseMillis());
            for (int i = 0; i < batch.size(); i++) {
                LockRequest request = batch.get(i).request();
                LockKeys lockKeys = LockKeys.of(config.keyPrefix(), request.name());
                keys[2 * i] = lockKeys.lock;
                keys[2 * i + 1] = lockKeys.readers;
                args[2 * i + 1] = owner(request);
                args[2 * i + 2] = request.shared() ? SHARED : EXCLUSIVE;
            }
            replies.add(runner.eval(LuaScript.RENEW, keys, args));
        }
        Map<Lease, RenewalResult> outcome = new HashMap<>();
        for (int b = 0; b < batches.size(); b++) {
            List<Lease> batch = batches.get(b);
            List<?> reply;
            try {
                reply = (List<?>) replies.get(b).get(Math.max(0, deadline - System.nanoTime()),
                        TimeUnit.NANOSECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                break;
            }
            catch (ExecutionException | TimeoutException ex) {
                log.debug("Lease renewal failed", ex);
                continue;
            }
            for (int i = 0; i < batch.size(); i++) {
                outcome.put(batch.get(i), ((Number) reply.get(i)).longValue() == 1 ? RenewalResult.RENEWED
                        : RenewalResult.LOST);
            }
        }
        List<RenewalResult> results = new ArrayList<>(leases.size());
        for (Lease lease : leases) {
            results.add(outcome.getOrDefault(lease, RenewalResult.ERROR));
        }
        return results;
    }

    /**
     * Groups leases so that each call touches one Cluster slot (any slot mix is fine off Cluster) and carries one
     * lease time, at most {@value #RENEW_BATCH} leases a call.
     */
    private List<List<Lease>> batches(List<? extends Lease> leases) {
        boolean cluster = runner.isCluster();
        Map<String, List<Lease>> groups = new LinkedHashMap<>();
        for (Lease lease : leases) {
            LockRequest request = lease.request();
            int slot = cluster ? ClusterSlotHashUtil.calculateSlot(LockKeys.lockKey(config.keyPrefix(),
                    request.name())) : 0;
            groups.computeIfAbsent(slot + "/" + request.leaseMillis(), group -> new ArrayList<>()).add(lease);
        }
        List<List<Lease>> batches = new ArrayList<>();
        for (List<Lease> group : groups.values()) {
            for (int from = 0; from < group.size(); from += RENEW_BATCH) {
                batches.add(group.subList(from, Math.min(group.size(), from + RENEW_BATCH)));
            }
        }
        return batches;
    }

    @Override
    public StoreHealth health(Duration timeout) {
        long start = System.nanoTime();
        try {
            String pong = runner.ping().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("redis", "UP");
            details.put("ping", pong);
            details.put("pingMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            details.put("releaseNotifications", subscriber.isSubscribed() ? "subscribed" : "not subscribed");
            return new StoreHealth(true, details);
        }
        catch (TimeoutException ex) {
            return new StoreHealth(false, Map.of("redis", "DOWN", "error", "Redis did not answer PING within "
                    + timeout));
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
            return new StoreHealth(false, Map.of("redis", "DOWN", "error", String.valueOf(cause.getMessage())));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return new StoreHealth(false, Map.of("redis", "UNKNOWN", "error", "interrupted"));
        }
    }

    /** Waits for a reply within the command timeout. */
    private Object await(CompletableFuture<Object> reply, String what) {
        try {
            return reply.get(timeoutNanos, TimeUnit.NANOSECONDS);
        }
        catch (TimeoutException ex) {
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

    private static byte[] owner(LockRequest request) {
        return request.ownerToken().getBytes(StandardCharsets.US_ASCII);
    }

    private static byte[] name(LockRequest request) {
        return request.name().getBytes(StandardCharsets.UTF_8);
    }

    @Override
    public void close() {
        subscriber.close();
        runner.close();
    }

    @Override
    public String toString() {
        return "RedisLockStore[" + config.keyPrefix() + "]";
    }
}
