package dev.distlock.redis;

import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import dev.distlock.spi.LockListener;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.WatchdogStatus;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One scheduler thread for all held locks. Every {@code lease-time / 3} it renews every watchdog lease with
 * {@code renew.lua}, many leases per call (one call per Cluster slot, or one per {@value #BATCH} leases on a
 * standalone or Sentinel master), all calls sent at once. A lease is lost when Redis says the lock is gone or owned
 * by another, or when its deadline passes without a successful renewal (Redis unreachable).
 * <p>
 * The same thread also ends fixed leases locally when they run out without an unlock.
 */
final class LeaseWatchdog {

    static final int BATCH = 500;

    private static final Logger log = LoggerFactory.getLogger(LeaseWatchdog.class);

    private static final LuaScript RENEW = LuaScript.load("renew.lua", ScriptOutputType.MULTI);

    private final LockConnection connection;

    private final RedisLockConfig config;

    private final LockListener listener;

    private final Consumer<RedisLockHandle> onLost;

    private final Set<RedisLockHandle> leases = ConcurrentHashMap.newKeySet();

    private final ScheduledThreadPoolExecutor scheduler;

    private final long periodMillis;

    private volatile ScheduledFuture<?> task;

    private volatile Instant lastRunAt;

    private volatile Instant lastSuccessAt;

    private volatile int consecutiveFailures;

    LeaseWatchdog(LockConnection connection, RedisLockConfig config, LockListener listener,
            Consumer<RedisLockHandle> onLost) {
        this.connection = connection;
        this.config = config;
        this.listener = listener;
        this.onLost = onLost;
        this.periodMillis = Math.max(1, config.leaseTime().toMillis() / 3);
        this.scheduler = new ScheduledThreadPoolExecutor(1, runnable -> {
            Thread thread = new Thread(runnable, "distlock-watchdog");
            thread.setDaemon(true);
            return thread;
        });
        // Cancelled fixed-lease expiries must not pile up in the queue.
        scheduler.setRemoveOnCancelPolicy(true);
    }

    synchronized void start() {
        if (task == null) {
            task = scheduler.scheduleWithFixedDelay(this::renewAll, periodMillis, periodMillis,
                    TimeUnit.MILLISECONDS);
        }
    }

    void stop() {
        scheduler.shutdownNow();
    }

    /** @return the watchdog's scheduler thread, for other light periodic work of the lock service */
    ScheduledExecutorService scheduler() {
        return scheduler;
    }

    void add(RedisLockHandle handle) {
        leases.add(handle);
    }

    void remove(RedisLockHandle handle) {
        leases.remove(handle);
    }

    ScheduledFuture<?> expireAt(RedisLockHandle handle, Consumer<RedisLockHandle> onExpired) {
        long delayNanos = handle.leaseDeadlineNanos - System.nanoTime();
        return scheduler.schedule(() -> onExpired.accept(handle), delayNanos, TimeUnit.NANOSECONDS);
    }

    /** Renews every watchdog lease; runs on the scheduler thread only. */
    void renewAll() {
        try {
            lastRunAt = Instant.now();
            List<RedisLockHandle> due = new ArrayList<>(leases);
            if (due.isEmpty()) {
                lastSuccessAt = lastRunAt;
                consecutiveFailures = 0;
                return;
            }
            long sent = System.nanoTime();
            Map<RedisLockHandle, Boolean> outcome = renew(due);
            int renewed = 0;
            int lost = 0;
            int failed = 0;
            for (RedisLockHandle handle : due) {
                Boolean alive = outcome.get(handle);
                if (alive == null) {
                    failed++;
                    if (System.nanoTime() - handle.leaseDeadlineNanos >= 0) {
                        lost++;
                        onLost.accept(handle);
                    }
                }
                else if (alive) {
                    renewed++;
                    handle.leaseDeadlineNanos = sent + handle.leaseMillis * 1_000_000L;
                    handle.renewals++;
                    handle.lastRenewalNanos = sent;
                    handle.lastRenewalAt = Instant.now();
                }
                else {
                    lost++;
                    onLost.accept(handle);
                }
            }
            if (failed == 0) {
                lastSuccessAt = Instant.now();
                consecutiveFailures = 0;
            }
            else {
                consecutiveFailures++;
            }
            report(RenewalResult.RENEWED, renewed);
            report(RenewalResult.LOST, lost);
            report(RenewalResult.ERROR, failed);
        }
        catch (RuntimeException ex) {
            log.warn("Lease watchdog run failed", ex);
        }
    }

    private void report(RenewalResult result, int count) {
        if (count > 0) {
            listener.renewed(result, count);
        }
    }

    /** @return per handle: true renewed, false lost; absent when Redis could not answer */
    private Map<RedisLockHandle, Boolean> renew(List<RedisLockHandle> handles) {
        Map<RedisLockHandle, Boolean> outcome = new HashMap<>();
        long timeoutNanos = config.commandTimeout().toNanos();
        long deadline = System.nanoTime() + timeoutNanos;
        RedisClusterAsyncCommands<byte[], byte[]> commands;
        try {
            commands = connection.commands(timeoutNanos);
        }
        catch (Exception ex) {
            log.debug("Watchdog could not reach Redis", ex);
            return outcome;
        }
        List<List<RedisLockHandle>> batches = batches(handles);
        List<CompletableFuture<List<Object>>> replies = new ArrayList<>(batches.size());
        for (List<RedisLockHandle> batch : batches) {
            byte[][] keys = new byte[2 * batch.size()][];
            byte[][] args = new byte[2 * batch.size() + 1][];
            args[0] = LuaScript.arg(batch.get(0).leaseMillis);
            for (int i = 0; i < batch.size(); i++) {
                RedisLockHandle handle = batch.get(i);
                keys[2 * i] = handle.keys.lock;
                keys[2 * i + 1] = handle.keys.readers;
                args[2 * i + 1] = handle.ownerToken;
                args[2 * i + 2] = handle.mode();
            }
            replies.add(RENEW.run(commands, keys, args));
        }
        for (int b = 0; b < batches.size(); b++) {
            try {
                List<Object> reply = replies.get(b).get(Math.max(0, deadline - System.nanoTime()),
                        TimeUnit.NANOSECONDS);
                List<RedisLockHandle> batch = batches.get(b);
                for (int i = 0; i < batch.size(); i++) {
                    outcome.put(batch.get(i), ((Number) reply.get(i)).longValue() == 1);
                }
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                return outcome;
            }
            catch (Exception ex) {
                log.debug("Lease renewal failed", ex);
            }
        }
        return outcome;
    }

    /** Groups leases so that each call touches one Cluster slot (any slot mix is fine off Cluster). */
    private List<List<RedisLockHandle>> batches(List<RedisLockHandle> handles) {
        Map<Integer, List<RedisLockHandle>> bySlot = new HashMap<>();
        boolean cluster = connection.isCluster();
        for (RedisLockHandle handle : handles) {
            int group = cluster ? SlotHash.getSlot(handle.keys.lock) : 0;
            bySlot.computeIfAbsent(group, g -> new ArrayList<>()).add(handle);
        }
        List<List<RedisLockHandle>> batches = new ArrayList<>();
        for (List<RedisLockHandle> group : bySlot.values()) {
            for (int from = 0; from < group.size(); from += BATCH) {
                batches.add(group.subList(from, Math.min(group.size(), from + BATCH)));
            }
        }
        return batches;
    }

    WatchdogStatus status() {
        long now = System.nanoTime();
        long lateNanos = 2 * periodMillis * 1_000_000L;
        boolean onTime = leases.stream().noneMatch(h -> now - h.lastRenewalNanos > lateNanos);
        return new WatchdogStatus(task != null && !scheduler.isShutdown(), leases.size(), lastRunAt, lastSuccessAt,
                consecutiveFailures, onTime);
    }
}
