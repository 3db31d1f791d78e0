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
 * <p>
 * With replica acknowledgement ({@code distlock.replication.min-replicas} not 0), each master that has replicas to
 * wait for gets one {@code WAIT} behind its renewal calls, on the same connection; a renewal no replica acknowledged
 * counts as failed, not renewed. Otherwise a holder cut off with its old master (a partition) would keep renewing
 * there, unreported, while a promoted replica, whose copy of the lock stops being renewed, lets it expire and
 * grants it again. Failed renewals let the lease run out, so the loss is reported within a lease.
 */
final class RedisRenewals {

    static final int RENEW_BATCH = 500;

    private static final Logger log = LoggerFactory.getLogger(RedisRenewals.class);

    private final RedisRunner runner;

    private final RedisLockConfig config;

    private final long timeoutNanos;

    private final boolean acknowledging;

    RedisRenewals(RedisRunner runner, RedisLockConfig config, boolean acknowledging) {
        this.runner = runner;
        this.config = config;
        this.timeoutNanos = config.commandTimeout().toNanos();
        this.acknowledging = acknowledging;
    }

    List<RenewalResult> renew(List<? extends Lease> leases) {
        long deadline = System.nanoTime() + timeoutNanos;
        List<List<Lease>> batches = batches(leases);
        List<CompletableFuture<Object>> replies;
        if (acknowledging) {
            replies = sendAcknowledged(batches, deadline);
            deadline += config.replicationTimeout().toNanos();
        }
        else {
            replies = new ArrayList<>(batches.size());
            for (List<Lease> batch : batches) {
                replies.add(runner.eval(LuaScript.RENEW, keys(batch), args(batch)));
            }
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
                if (ex.getCause() instanceof Unacknowledged unacknowledged) {
                    // Lost stays lost; what was renewed on the master alone counts as not renewed.
                    log.debug("Lease renewal not acknowledged by replicas: {}", unacknowledged.getMessage());
                    reply = unacknowledged.reply;
                    for (int i = 0; i < batch.size(); i++) {
                        if (((Number) reply.get(i)).longValue() != 1) {
                            outcome.put(batch.get(i), RenewalResult.LOST);
                        }
                    }
                    continue;
                }
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
     * Sends every batch to its master's own connection, then one {@code WAIT} per master that has replicas to wait
     * for, behind all of that master's batches.
     *
     * @return per batch, the reply once acknowledged; {@link Unacknowledged} when the replicas did not confirm
     */
    private List<CompletableFuture<Object>> sendAcknowledged(List<List<Lease>> batches, long deadline) {
        List<CompletableFuture<Object>> replies = new ArrayList<>(batches.size());
        Map<RedisNode, List<Integer>> byNode = new LinkedHashMap<>();
        for (int b = 0; b < batches.size(); b++) {
            replies.add(null);
            byte[] key = LockKeys.of(config.keyPrefix(), batches.get(b).get(0).request().name()).lock;
            try {
                RedisNode node = runner.node(key).get(Math.max(0, deadline - System.nanoTime()),
                        TimeUnit.NANOSECONDS);
                byNode.computeIfAbsent(node, n -> new ArrayList<>()).add(b);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                replies.set(b, CompletableFuture.failedFuture(ex));
            }
            catch (ExecutionException | TimeoutException ex) {
                replies.set(b, CompletableFuture.failedFuture(ex));
            }
        }
        for (Map.Entry<RedisNode, List<Integer>> entry : byNode.entrySet()) {
            RedisNode node = entry.getKey();
            int required;
            try {
                required = config.minReplicas().required(node.onlineReplicas()
                        .get(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS));
            }
            catch (InterruptedException | ExecutionException | TimeoutException ex) {
                if (ex instanceof InterruptedException) {
                    Thread.currentThread().interrupt();
                }
                entry.getValue().forEach(b -> replies.set(b, CompletableFuture.failedFuture(ex)));
                continue;
            }
            List<CompletableFuture<Object>> sent = new ArrayList<>();
            for (int b : entry.getValue()) {
                sent.add(node.eval(LuaScript.RENEW, keys(batches.get(b)), args(batches.get(b))));
            }
            CompletableFuture<Long> acknowledged = required == 0 ? CompletableFuture.completedFuture(0L)
                    : node.waitForReplicas(required, config.replicationTimeout().toMillis());
            for (int i = 0; i < sent.size(); i++) {
                replies.set(entry.getValue().get(i), sent.get(i).thenCombine(acknowledged, (reply, replicas) -> {
                    if (replicas < required) {
                        throw new Unacknowledged((List<?>) reply, "only " + replicas + " of " + required
                                + " replicas of " + node + " acknowledged the renewal within "
                                + "distlock.replication.timeout (distlock.replication.min-replicas="
                                + config.minReplicas() + ")");
                    }
                    return reply;
                }));
            }
        }
        return replies;
    }

    private byte[][] keys(List<Lease> batch) {
        byte[][] keys = new byte[2 * batch.size()][];
        for (int i = 0; i < batch.size(); i++) {
            LockKeys lockKeys = LockKeys.of(config.keyPrefix(), batch.get(i).request().name());
            keys[2 * i] = lockKeys.lock;
            keys[2 * i + 1] = lockKeys.readers;
        }
        return keys;
    }

    private static byte[][] args(List<Lease> batch) {
        byte[][] args = new byte[2 * batch.size() + 1][];
        args[0] = LuaScript.arg(batch.get(0).request().leaseMillis());
        for (int i = 0; i < batch.size(); i++) {
            LockRequest request = batch.get(i).request();
            args[2 * i + 1] = LuaScript.owner(request);
            args[2 * i + 2] = LuaScript.mode(request);
        }
        return args;
    }

    /** A renewal the master applied but too few replicas acknowledged: carries the script's reply. */
    private static final class Unacknowledged extends RuntimeException {

        private static final long serialVersionUID = 1L;

        private final transient List<?> reply;

        Unacknowledged(List<?> reply, String message) {
            super(message, null, false, false);
            this.reply = reply;
        }
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
