package dev.distlock.quorum;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import dev.distlock.spi.LockStore;
import dev.distlock.spi.StoreHealth;

/**
 * The health of a {@link QuorumLockStore}: up when a majority of its nodes is up, with each node's details.
 */
final class QuorumHealth {

    private QuorumHealth() {
    }

    /**
     * @param nodes the nodes
     * @param quorum how many must be up
     * @param commandTimeout how long each node's answer is waited for
     * @return up when a majority of the nodes is up (each waited for at most the command timeout), per node
     */
    static CompletionStage<StoreHealth> check(List<LockStore> nodes, int quorum, Duration commandTimeout) {
        List<CompletableFuture<StoreHealth>> checks = new ArrayList<>(nodes.size());
        for (LockStore node : nodes) {
            CompletableFuture<StoreHealth> check = RequestOrder.send(node::health);
            checks.add(check.exceptionally(error -> down("failed: " + error))
                    .completeOnTimeout(down("no answer within " + commandTimeout.toMillis() + " ms"),
                            commandTimeout.toNanos(), TimeUnit.NANOSECONDS));
        }
        return CompletableFuture.allOf(checks.toArray(CompletableFuture<?>[]::new)).thenApply(done -> {
            Map<String, Object> details = new LinkedHashMap<>();
            int up = 0;
            for (int i = 0; i < checks.size(); i++) {
                StoreHealth health = checks.get(i).join();
                up += health.up() ? 1 : 0;
                Map<String, Object> node = new LinkedHashMap<>();
                node.put("status", health.up() ? "UP" : "DOWN");
                node.putAll(health.details());
                details.put("node" + i, node);
            }
            details.put("quorum", quorum);
            details.put("nodesUp", up);
            return new StoreHealth(up >= quorum, details);
        });
    }

    private static StoreHealth down(String why) {
        return new StoreHealth(false, Map.of("error", why));
    }
}
