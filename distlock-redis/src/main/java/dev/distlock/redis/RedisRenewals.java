package dev.distlock.redis;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;

import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.RenewalResult;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.ClusterSlotHashUtil;

/**
 * Renews the engine's batch of watchdog leases in as few round trips as Redis allows: one {@code renew.lua} call per
 * lease time, and on Cluster per hash slot as well (a script must not touch keys of several slots), all sent at once.
 * <p>
 * With replica acknowledgement ({@code distlock.replication.min-replicas} not 0), each master that has replicas to
 * wait for gets one {@code WAIT} behind its renewal calls, on the same connection; a renewal no replica acknowledged
 * counts as failed, not renewed. Otherwise a holder cut off with its old master (a partition) would keep renewing
 * there, unreported, while a promoted replica, whose copy of the lock stops being renewed, lets it expire and
 * grants it again. Failed renewals let the lease run out, so the loss is reported within a lease.
 */
final class RedisRenewals {

    private static final Logger log = LoggerFactory.getLogger(RedisRenewals.class);

    private final RedisRunner runner;

    private final RedisLockConfig config;

    private final boolean acknowledging;

    private final HolderKeys holders;

    RedisRenewals(RedisRunner runner, RedisLockConfig config, boolean acknowledging, HolderKeys holders) {
        this.runner = runner;
        this.config = config;
        this.acknowledging = acknowledging;
        this.holders = holders;
    }

    /**
     * @param leases the engine's batch
     * @return one result per lease, in order; {@link RenewalResult#ERROR} for a lease whose call failed
     */
    CompletableFuture<List<RenewalResult>> renew(List<? extends Lease> leases) {
        RenewalResult[] results = new RenewalResult[leases.size()];
        Arrays.fill(results, RenewalResult.ERROR);
        List<Group> groups = groups(leases);
        CompletableFuture<?> done = acknowledging ? renewAcknowledged(groups, results)
                : CompletableFuture.allOf(groups.stream().map(group -> runner.eval(LuaScript.RENEW, group.keys(),
                        group.args()).handle((reply, error) -> group.record(reply, error, true, results)))
                        .toArray(CompletableFuture[]::new));
        return done.handle((ignored, error) -> List.of(results));
    }

    /**
     * Sends every group to its master's own connection, then one {@code WAIT} per master that has replicas to wait
     * for, behind all of that master's groups.
     */
    private CompletableFuture<?> renewAcknowledged(List<Group> groups, RenewalResult[] results) {
        List<CompletableFuture<RedisNode>> masters = new ArrayList<>(groups.size());
        for (Group group : groups) {
            masters.add(runner.node(group.keys()[0]));
        }
        return CompletableFuture.allOf(masters.toArray(CompletableFuture[]::new)).handle((ignored, error) -> {
            Map<RedisNode, List<Group>> byNode = new LinkedHashMap<>();
            for (int g = 0; g < groups.size(); g++) {
                CompletableFuture<RedisNode> master = masters.get(g);
                if (master.isCompletedExceptionally()) {
                    log.debug("Lease renewal failed: no connection to the master of {} leases", groups.get(g).size());
                    continue; // stays ERROR
                }
                byNode.computeIfAbsent(master.join(), node -> new ArrayList<>()).add(groups.get(g));
            }
            return CompletableFuture.allOf(byNode.entrySet().stream()
                    .map(entry -> renewOn(entry.getKey(), entry.getValue(), results))
                    .toArray(CompletableFuture[]::new));
        }).thenCompose(sent -> sent);
    }

    private CompletableFuture<?> renewOn(RedisNode node, List<Group> groups, RenewalResult[] results) {
        return node.onlineReplicas().thenCompose(online -> {
            int required = config.minReplicas().required(online);
            List<CompletableFuture<Object>> sent = new ArrayList<>(groups.size());
            for (Group group : groups) {
                sent.add(node.eval(LuaScript.RENEW, group.keys(), group.args()));
            }
            CompletableFuture<Long> acknowledged = required == 0 ? CompletableFuture.completedFuture(0L)
                    : node.waitForReplicas(required, config.replicationTimeout().toMillis());
            CompletableFuture<?>[] recorded = new CompletableFuture<?>[groups.size()];
            for (int g = 0; g < groups.size(); g++) {
                Group group = groups.get(g);
                recorded[g] = sent.get(g).thenCombine(acknowledged, (reply, replicas) -> {
                    if (replicas < required) {
                        log.debug("Lease renewal not acknowledged by replicas: only {} of {} replicas of {} within "
                                + "distlock.replication.timeout", replicas, required, node);
                    }
                    // Lost stays lost; what was renewed on the master alone counts as not renewed.
                    return group.record(reply, null, replicas >= required, results);
                }).exceptionally(error -> group.record(null, error, false, results));
            }
            return CompletableFuture.allOf(recorded);
        }).exceptionally(error -> {
            log.debug("Lease renewal failed: the replicas of {} are unknown", node, error);
            return null;
        });
    }

    /**
     * Groups leases so that each call touches one Cluster slot (any slot mix is fine off Cluster) and carries one
     * lease time.
     */
    private List<Group> groups(List<? extends Lease> leases) {
        boolean cluster = runner.isCluster();
        Map<String, Group> groups = new LinkedHashMap<>();
        for (int i = 0; i < leases.size(); i++) {
            LockRequest request = leases.get(i).request();
            int slot = cluster ? ClusterSlotHashUtil.calculateSlot(LockKeys.lockKey(config.keyPrefix(),
                    request.name())) : 0;
            groups.computeIfAbsent(slot + "/" + request.leaseMillis(), key -> new Group(new ArrayList<>(),
                    new ArrayList<>(), request.leaseMillis())).add(i, request);
        }
        return List.copyOf(groups.values());
    }

    /** The leases of one {@code renew.lua} call: their positions in the engine's batch, and their requests. */
    private final class Group {

        private final List<Integer> positions;

        private final List<LockRequest> requests;

        private final long leaseMillis;

        Group(List<Integer> positions, List<LockRequest> requests, long leaseMillis) {
            this.positions = positions;
            this.requests = requests;
            this.leaseMillis = leaseMillis;
        }

        void add(int position, LockRequest request) {
            positions.add(position);
            requests.add(request);
        }

        int size() {
            return requests.size();
        }

        /** Per lease the keys {@code renew.lua} reads for its mode, the lock key first (see the script). */
        byte[][] keys() {
            List<byte[]> keys = new ArrayList<>(requests.size());
            for (LockRequest request : requests) {
                LockKeys lockKeys = LockKeys.of(config.keyPrefix(), request.name());
                keys.add(lockKeys.lock);
                ScriptMarker mode = ScriptMarker.mode(request);
                if (mode != ScriptMarker.EXCLUSIVE) {
                    keys.add(lockKeys.readers);
                }
                if (mode == ScriptMarker.PERMIT) {
                    keys.add(lockKeys.permits);
                }
            }
            return keys.toArray(byte[][]::new);
        }

        byte[][] args() {
            byte[][] args = new byte[2 * requests.size() + 1][];
            args[0] = LuaScript.arg(leaseMillis);
            for (int i = 0; i < requests.size(); i++) {
                args[2 * i + 1] = holders.owner(requests.get(i));
                args[2 * i + 2] = ScriptMarker.mode(requests.get(i)).wire();
            }
            return args;
        }

        /**
         * Writes the script's answer into the results: renewed or lost per lease; a renewal that counts only when
         * acknowledged and was not stays an error, and so does every lease of a failed call.
         */
        @Nullable Void record(@Nullable Object reply, @Nullable Throwable error, boolean acknowledged,
                RenewalResult[] results) {
            if (error != null || !(reply instanceof List<?> answers)) {
                log.debug("Lease renewal failed", error);
                return null;
            }
            for (int i = 0; i < answers.size(); i++) {
                boolean renewed = ((Number) answers.get(i)).longValue() == 1;
                if (!renewed) {
                    results[positions.get(i)] = RenewalResult.LOST;
                }
                else if (acknowledged) {
                    results[positions.get(i)] = RenewalResult.RENEWED;
                }
            }
            return null;
        }
    }
}
