package dev.distlock.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.RenewalResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * Renews many watchdog leases at once: one {@code renew.lua} call per {@value #RENEW_BATCH} leases (per hash slot on
 * Cluster, where a script must not touch keys of several slots), all calls sent before any reply is awaited.
 */
final class RedisRenewals {

    static final int RENEW_BATCH = 500;

    private static final Logger log = LoggerFactory.getLogger(RedisRenewals.class);

    private final RedisRunner runner;

    private final RedisLockConfig config;

    private final long timeoutNanos;

    RedisRenewals(RedisRunner runner, RedisLockConfig config) {
        this.runner = runner;
        this.config = config;
        this.timeoutNanos = config.commandTimeout().toNanos();
    }

    List<RenewalResult> renew(List<? extends Lease> leases) {
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
                args[2 * i + 1] = LuaScript.owner(request);
                args[2 * i + 2] = LuaScript.mode(request);
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
            catch (TimeoutException ex) {
                runner.timedOut();
                log.debug("Lease renewal timed out", ex);
                continue;
            }
            catch (ExecutionException ex) {
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

}
