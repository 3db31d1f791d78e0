package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.LeaseLostException;
import dev.distlock.LockContext;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockType;
import dev.distlock.LockUnavailableException;
import dev.distlock.OnLeaseLost;
import dev.distlock.spi.AcquireResult;
import dev.distlock.spi.CompositeLockListener;
import dev.distlock.spi.HeldLockInfo;
import dev.distlock.spi.HeldLockRegistry;
import dev.distlock.spi.LockListener;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.WatchdogStatus;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.beans.factory.DisposableBean;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * {@link LockService} on Redis through Spring Data Redis and Lettuce.
 * <ul>
 * <li>Acquire is one {@code EVALSHA} of {@code acquire.lua}: ownership (an unguessable token per acquisition),
 * lease and fencing token in one atomic step. Release is one owner-checked {@code EVALSHA} of
 * {@code release.lua}.</li>
 * <li>Threads of this JVM that want the same lock queue locally; only the first competes in Redis. It sleeps until
 * a release notification (one pub/sub channel per application) or until the holder's lease would end, capped at
 * {@link #MAX_RECHECK_INTERVAL}, whichever comes first.</li>
 * <li>Watchdog leases are renewed by one {@link LeaseWatchdog} for all held locks.</li>
 * <li>Every Redis call is bounded by {@code distlock.command-timeout}; a slow or failed acquire throws
 * {@link LockUnavailableException} and releases whatever it may have taken.</li>
 * </ul>
 */
public class RedisLockService implements LockService, HeldLockRegistry, DisposableBean {

    /**
     * How long a released lock that someone waits for stays reserved for the woken waiters, against newcomers. Long
     * enough for a notification and one round trip on a busy machine; if every waiter gave up, the lock is free
     * again after it.
     */
    static final Duration HANDOFF_WINDOW = Duration.ofMillis(100);

    private static final byte[] HANDOFF_WINDOW_ARG = LuaScript.arg(HANDOFF_WINDOW.toMillis());

    /** Bound on how long a waiter trusts pub/sub alone: a notification can be lost while reconnecting. */
    static final Duration MAX_RECHECK_INTERVAL = Duration.ofMillis(500);

    private static final Logger log = LoggerFactory.getLogger(RedisLockService.class);

    private static final LuaScript ACQUIRE = LuaScript.load("acquire.lua", ScriptOutputType.INTEGER);

    private static final LuaScript RELEASE = LuaScript.load("release.lua", ScriptOutputType.INTEGER);

    static final byte[] EXCLUSIVE = { 'w' };

    static final byte[] SHARED = { 'r' };

    private static final byte[] FIRST_ATTEMPT = { '1' };

    private static final byte[] LATER_ATTEMPT = { '0' };

    /**
     * One generator per thread: the platform default (NativePRNG) serialises every caller on one lock and showed up
     * as a tenth of the lock path's CPU under 64 threads. DRBG (NIST SP 800-90A) is as unguessable and lock-free
     * across threads this way.
     */
    private static final ThreadLocal<SecureRandom> RANDOM = ThreadLocal.withInitial(RedisLockService::newRandom);

    private final RedisLockConfig config;

    private final LockListener listener;

    private final LockConnection connection;

    private final LocalLockQueues queues = new LocalLockQueues();

    private final Set<RedisLockHandle> held = ConcurrentHashMap.newKeySet();

    private final LeaseWatchdog watchdog;

    private final ReleaseSubscriber subscriber;

    private final byte[] channel;

    private final long commandTimeoutNanos;

    private final byte[] fencingIdle;

    /**
     * @param connectionFactory the Lettuce connection factory, as configured by {@code spring.data.redis.*}
     * @param config the settings
     * @param listener the event callbacks (metrics); its exceptions are logged and ignored
     */
    public RedisLockService(LettuceConnectionFactory connectionFactory, RedisLockConfig config,
            LockListener listener) {
        this.config = config;
        this.listener = listener instanceof CompositeLockListener ? listener : CompositeLockListener.of(List.of(listener));
        this.connection = new LockConnection(connectionFactory);
        this.commandTimeoutNanos = config.commandTimeout().toNanos();
        this.fencingIdle = LuaScript.arg(config.fencingIdleTime().toMillis());
        this.channel = LockKeys.channel(config.keyPrefix());
        this.watchdog = new LeaseWatchdog(connection, config, this.listener, this::leaseLost);
        this.subscriber = new ReleaseSubscriber(connectionFactory, channel, queues::handOff);
    }

    /**
     * Subscribes to release notifications and starts the watchdog. Locking works before this too (waiters then
     * re-check on a timer only).
     */
    public void start() {
        watchdog.start();
        subscriber.start(watchdog.scheduler());
    }

    /** @return the settings */
    public RedisLockConfig config() {
        return config;
    }

    @Override
    public Optional<LockHandle> tryLock(String name, LockOptions options) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("Lock name must not be empty");
        }
        boolean shared = options.type() == LockType.READ;
        Optional<LockHandle> reentered = LockContext.held(name, this::issued).map(held -> reenter(held, shared));
        if (reentered.isPresent()) {
            return reentered;
        }
        long start = System.nanoTime();
        long waitNanos = options.waitTime().orElse(config.waitTime()).toNanos();
        boolean useWatchdog = options.leaseTime().isEmpty();
        long leaseMillis = options.leaseTime().orElse(config.leaseTime()).toMillis();
        Object context = listener.acquireStarted(name);
        RedisLockHandle handle = null;
        try {
            handle = acquire(name, start + waitNanos, useWatchdog, shared, leaseMillis);
        }
        catch (RuntimeException ex) {
            listener.acquireFinished(name, context, AcquireResult.ERROR, System.nanoTime() - start, null, ex);
            throw ex;
        }
        long waited = System.nanoTime() - start;
        if (handle == null) {
            listener.acquireFinished(name, context, AcquireResult.TIMEOUT, waited, null, null);
            log.debug("Lock '{}' not acquired within {} ms", name, waitNanos / 1_000_000);
            return Optional.empty();
        }
        listener.acquireFinished(name, context, AcquireResult.ACQUIRED, waited, handle, null);
        if (log.isDebugEnabled()) {
            log.debug("Lock '{}' acquired with fencing token {} after {} µs", name, handle.fencingToken, waited / 1000);
        }
        return Optional.of(handle);
    }

    private boolean issued(LockHandle handle) {
        return (handle instanceof RedisLockHandle h && h.service == this)
                || (handle instanceof ReentrantLockHandle r && r.root.service == this);
    }

    private LockHandle reenter(LockHandle held, boolean shared) {
        RedisLockHandle root = held instanceof ReentrantLockHandle r ? r.root : (RedisLockHandle) held;
        if (root.shared && !shared) {
            // Two readers upgrading at once would wait for each other forever.
            throw new LockException("Lock '" + root.name + "' is held for READ by this call chain and cannot be "
                    + "upgraded to an exclusive lock; release the read lock first");
        }
        root.holds.incrementAndGet();
        ReentrantLockHandle handle = new ReentrantLockHandle(root);
        handle.bindTo(LockContext.bind(handle));
        return handle;
    }

    /** @return the handle, or null when the deadline passed */
    private RedisLockHandle acquire(String name, long deadline, boolean useWatchdog, boolean shared,
            long leaseMillis) {
        LocalLockQueues.Entry entry = queues.join(name, shared);
        RedisLockHandle handle = null;
        try {
            if (!entry.permit.tryAcquire(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                return null;
            }
            try {
                handle = acquireInRedis(name, entry, deadline, useWatchdog, shared, leaseMillis);
            }
            finally {
                if (handle == null || shared) {
                    entry.permit.release(); // a reader holds no local permit: the next reader may go at once
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockException("Interrupted while waiting for lock '" + name + "'", ex);
        }
        finally {
            if (handle == null) {
                queues.leave(name, shared, entry);
            }
        }
        if (handle == null) {
            return null;
        }
        held.add(handle);
        if (useWatchdog) {
            watchdog.add(handle);
        }
        else {
            handle.expiry = watchdog.expireAt(handle, this::expired);
        }
        handle.bindTo(LockContext.bind(handle));
        return handle;
    }

    private RedisLockHandle acquireInRedis(String name, LocalLockQueues.Entry entry, long deadline,
            boolean useWatchdog, boolean shared, long leaseMillis) {
        LockKeys keys = LockKeys.of(config.keyPrefix(), name);
        byte[][] keyArray = { keys.lock, keys.waiters, keys.readers, keys.writer };
        byte[] mode = shared ? SHARED : EXCLUSIVE;
        byte[] token = newOwnerToken();
        byte[] lease = LuaScript.arg(leaseMillis);
        entry.competitorToken = new String(token, StandardCharsets.US_ASCII);
        entry.competitor = Thread.currentThread();
        byte[] firstAttempt = FIRST_ATTEMPT;
        try {
            while (true) {
                long sent = System.nanoTime();
                long remainingMillis = Math.max(0, (deadline - sent) / 1_000_000);
                long reply;
                try {
                    reply = call(ACQUIRE, keyArray, token, lease, LuaScript.arg(remainingMillis), firstAttempt, mode);
                }
                catch (LockUnavailableException ex) {
                    releaseAbandoned(name, keys, token, mode);
                    throw ex;
                }
                if (reply > 0) {
                    return new RedisLockHandle(this, name, keys, token, reply, useWatchdog, shared, leaseMillis, entry,
                            sent);
                }
                firstAttempt = LATER_ATTEMPT;
                long now = System.nanoTime();
                if (now - deadline >= 0) {
                    return null;
                }
                // Sleep until a release hands the lock to this waiter, the holder's lease end, or the recheck bound.
                long holderLeaseNanos = -reply * 1_000_000L;
                LockSupport.parkNanos(this, Math.min(deadline - now,
                        Math.min(holderLeaseNanos, MAX_RECHECK_INTERVAL.toNanos())));
                if (Thread.interrupted()) {
                    Thread.currentThread().interrupt();
                    throw new LockException("Interrupted while waiting for lock '" + name + "'");
                }
            }
        }
        finally {
            entry.competitor = null;
            entry.competitorToken = null;
        }
    }

    /**
     * An acquire whose outcome is unknown (timed out or failed in flight) may still take the lock in Redis. The
     * owner-checked release of its token is sent on the same connection, so it runs after that acquire if the
     * acquire runs at all; nobody waits for it.
     */
    private void releaseAbandoned(String name, LockKeys keys, byte[] token, byte[] mode) {
        try {
            RedisClusterAsyncCommands<byte[], byte[]> commands = connection.commands(0);
            RELEASE.run(commands, new byte[][] { keys.lock, keys.waiters, keys.readers }, token, channel,
                    name.getBytes(StandardCharsets.UTF_8), HANDOFF_WINDOW_ARG, mode, fencingIdle);
        }
        catch (Exception ex) {
            // Not connected: the acquire was never sent, or its lease expires on its own.
            log.debug("Could not send the release of an abandoned acquire", ex);
        }
    }

    /** Runs a script bounded by the command timeout. */
    private long call(LuaScript script, byte[][] keys, byte[]... args) {
        long deadline = System.nanoTime() + commandTimeoutNanos;
        try {
            RedisClusterAsyncCommands<byte[], byte[]> commands = connection.commands(commandTimeoutNanos);
            CompletableFuture<Long> reply = script.run(commands, keys, args);
            return reply.get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
        }
        catch (TimeoutException ex) {
            throw new LockUnavailableException("Redis did not answer within distlock.command-timeout ("
                    + config.commandTimeout().toMillis() + " ms)", ex);
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
            throw new LockUnavailableException("Redis failed: " + cause.getMessage(), cause);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new LockUnavailableException("Interrupted while waiting for Redis", ex);
        }
        catch (RuntimeException ex) {
            throw new LockUnavailableException("Redis failed: " + ex.getMessage(), ex);
        }
    }

    private static SecureRandom newRandom() {
        try {
            return SecureRandom.getInstance("DRBG");
        }
        catch (java.security.NoSuchAlgorithmException ex) {
            return new SecureRandom();
        }
    }

    private static byte[] newOwnerToken() {
        byte[] random = new byte[16];
        RANDOM.get().nextBytes(random);
        return Base64.getUrlEncoder().withoutPadding().encode(random);
    }

    /** Releases the lock in Redis; called once, when the last hold of the handle is released. */
    void release(RedisLockHandle handle) {
        int previous = handle.state.getAndSet(RedisLockHandle.RELEASED);
        if (previous == RedisLockHandle.RELEASED) {
            return; // already released at shutdown
        }
        watchdog.remove(handle);
        held.remove(handle);
        ReleaseResult result;
        try {
            long reply = call(RELEASE, new byte[][] { handle.keys.lock, handle.keys.waiters, handle.keys.readers },
                    handle.ownerToken, channel, handle.name.getBytes(StandardCharsets.UTF_8), HANDOFF_WINDOW_ARG,
                    handle.mode(), fencingIdle);
            result = reply == 1 ? ReleaseResult.RELEASED : ReleaseResult.EXPIRED;
        }
        catch (LockUnavailableException ex) {
            result = ReleaseResult.ERROR;
            log.warn("Release of lock '{}' (fencing token {}) not confirmed by Redis; its lease will expire: {}",
                    handle.name, handle.fencingToken, ex.getMessage());
        }
        finally {
            handle.releaseLocal();
        }
        if (result == ReleaseResult.EXPIRED && previous != RedisLockHandle.LOST) {
            log.warn("Lock '{}' (fencing token {}) was released after its lease had expired: another holder may "
                    + "have run concurrently; use a longer lease or the watchdog", handle.name, handle.fencingToken);
        }
        else if (log.isDebugEnabled()) {
            log.debug("Lock '{}' (fencing token {}) released: {}", handle.name, handle.fencingToken, result.tag());
        }
        listener.released(handle, result);
        if (previous == RedisLockHandle.LOST && config.onLeaseLost() == OnLeaseLost.THROW) {
            throw new LeaseLostException("The lease of lock '" + handle.name + "' (fencing token "
                    + handle.fencingToken + ") was lost while it was held; mutual exclusion was not guaranteed");
        }
    }

    /** The watchdog found the lease lost: the handle is no longer held and the next local waiter may go. */
    private void leaseLost(RedisLockHandle handle) {
        if (handle.state.compareAndSet(RedisLockHandle.HELD, RedisLockHandle.LOST)) {
            handle.releaseLocal();
            log.warn("Lease of lock '{}' (fencing token {}) lost while held; another node may take it now",
                    handle.name, handle.fencingToken);
            listener.leaseLost(handle);
        }
    }

    /**
     * A fixed lease ran out before unlock: free the local queue and the call chain's context (a lock taken "for at
     * least this long" is often never unlocked, and pooled threads must not collect such handles); an unlock later
     * still reports the expiry.
     */
    private void expired(RedisLockHandle handle) {
        if (handle.state.compareAndSet(RedisLockHandle.HELD, RedisLockHandle.EXPIRED)) {
            held.remove(handle);
            handle.unbind();
            handle.releaseLocal();
        }
    }

    void leaveLocal(RedisLockHandle handle) {
        if (!handle.shared) {
            handle.localEntry.permit.release();
        }
        queues.leave(handle.name, handle.shared, handle.localEntry);
    }

    /** @return the number of lock names with local state; for tests */
    int localStateSize() {
        return queues.size();
    }

    @Override
    public List<HeldLockInfo> heldLocks() {
        long now = System.nanoTime();
        List<HeldLockInfo> result = new ArrayList<>();
        for (RedisLockHandle handle : held) {
            if (handle.isLockHeld()) {
                result.add(new HeldLockInfo(handle.name, handle.fencingToken, handle.acquiredAt,
                        Duration.ofNanos(now - handle.acquiredNanos),
                        Duration.ofNanos(Math.max(0, handle.leaseDeadlineNanos - now)), handle.watchdog,
                        handle.renewals, handle.lastRenewalAt));
            }
        }
        result.sort(Comparator.comparing(HeldLockInfo::acquiredAt));
        return result;
    }

    @Override
    public WatchdogStatus watchdogStatus() {
        return watchdog.status();
    }

    /** Stops the watchdog, releases every held lock and closes the connections. */
    @Override
    public void destroy() {
        watchdog.stop();
        for (RedisLockHandle handle : List.copyOf(held)) {
            if (handle.state.get() == RedisLockHandle.HELD) {
                try {
                    handle.unbind();
                    release(handle);
                }
                catch (RuntimeException ex) {
                    log.debug("Release at shutdown failed for lock '{}'", handle.name, ex);
                }
            }
        }
        subscriber.stop();
        connection.close();
    }
}
