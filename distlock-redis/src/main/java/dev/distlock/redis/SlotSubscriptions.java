package dev.distlock.redis;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicReferenceArray;

import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.Partitions;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import org.jspecify.annotations.Nullable;

/**
 * Which master's connection subscribed each slot's release channel, for {@link ShardedReleaseSubscriber}: what a
 * round must subscribe, and what a slot move or a reconnection took away. Written by the reconciling thread (a
 * subscription answered) and by Lettuce's threads (an {@code sunsubscribe}, a reconnection).
 */
final class SlotSubscriptions {

    /** Per slot, the master node id whose connection subscribed its channel; null while not subscribed. */
    private final AtomicReferenceArray<@Nullable String> subscribedOn = new AtomicReferenceArray<>(
            SlotHash.SLOT_COUNT);

    /** By master node id, the connection its slots were subscribed on. */
    private final Map<String, StatefulRedisPubSubConnection<byte[], byte[]>> connections = new ConcurrentHashMap<>();

    /**
     * @param partitions the client's view of the cluster
     * @param channels the release channels
     * @return by master node id, the channels of its slots that are not subscribed on it
     */
    Map<String, List<byte[]>> missing(Partitions partitions, ShardChannels channels) {
        Map<String, List<byte[]>> missing = new HashMap<>();
        for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot++) {
            RedisClusterNode master = partitions.getMasterBySlot(slot);
            if (master != null && !master.getNodeId().equals(subscribedOn.get(slot))) {
                missing.computeIfAbsent(master.getNodeId(), id -> new ArrayList<>()).add(channels.ofSlot(slot));
            }
        }
        return missing;
    }

    /** The master's slots are about to be subscribed on this connection. */
    void connection(String nodeId, StatefulRedisPubSubConnection<byte[], byte[]> connection) {
        connections.put(nodeId, connection);
    }

    /** Redis answered the slot's {@code SSUBSCRIBE} on the master's connection. */
    void subscribed(int slot, String nodeId) {
        subscribedOn.set(slot, nodeId);
    }

    /** Redis unsubscribed the slot's channel: the slot moved. */
    void unsubscribed(int slot) {
        subscribedOn.set(slot, null);
    }

    /**
     * A connection was made again, without the subscriptions it had (Lettuce's own re-subscribe fails on Cluster:
     * see {@link ShardedReleaseSubscriber}).
     *
     * @param connection the connection Lettuce made again
     * @return whether it was a master's whose slots were subscribed on it; they no longer are
     */
    boolean reconnected(RedisChannelHandler<?, ?> connection) {
        boolean ours = false;
        for (Map.Entry<String, StatefulRedisPubSubConnection<byte[], byte[]>> node : connections.entrySet()) {
            if (node.getValue() == connection) {
                ours = true;
                for (int slot = 0; slot < SlotHash.SLOT_COUNT; slot++) {
                    String on = subscribedOn.get(slot);
                    if (node.getKey().equals(on)) {
                        subscribedOn.compareAndSet(slot, on, null);
                    }
                }
            }
        }
        return ours;
    }
}
