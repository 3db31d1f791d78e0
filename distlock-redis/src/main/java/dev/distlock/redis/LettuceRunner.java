package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import io.lettuce.core.RedisURI;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The lock path on a Lettuce connection of its own, opened from the application's connection factory's client (so
 * {@code spring.data.redis.*} — host, Sentinel, Cluster, password, ACL user, TLS, database — applies unchanged) and
 * used asynchronously: every thread's lock commands are multiplexed on it, in the order they were sent. A
 * connection of its own keeps the application's traffic and the lock's {@code WAIT} from blocking each other.
 * <p>
 * This class sends the commands and finds the master serving a key; opening the connection, and replacing it when
 * it is stuck behind Sentinel, is the {@link LockConnection}'s job.
 */
final class LettuceRunner implements RedisRunner {

    private final LettuceConnectionFactory factory;

    private final LockConnection connection;

    private volatile @Nullable Nodes nodes;

    private final ReplicaCountLog replicaLog;

    private final boolean batchedScripts;

    /**
     * @param factory the application's connection factory
     * @param commandTimeout the command timeout; behind Sentinel, a connection that answered nothing for twice as
     *        long while commands timed out is replaced
     * @param replicaLog where the masters' replica counts are reported (one per store)
     * @param batchedScripts whether scripts go through a {@link ScriptBatcher} (ignored on Cluster)
     */
    LettuceRunner(LettuceConnectionFactory factory, Duration commandTimeout, ReplicaCountLog replicaLog,
            boolean batchedScripts) {
        this.factory = factory;
        this.batchedScripts = batchedScripts;
        this.replicaLog = replicaLog;
        this.connection = new LockConnection(factory, commandTimeout);
    }

    /** With batched scripts, off Cluster, scripts go through the connection's {@link ScriptBatcher}. */
    @Override
    public CompletableFuture<Object> eval(LuaScript script, byte[][] keys, byte[]... args) {
        RedisClusterAsyncCommands<byte[], byte[]> open = connection.openCommands();
        return open != null ? eval(open, script, keys, args) // the hot path
                : connection.commands().thenCompose(redis -> eval(redis, script, keys, args));
    }

    private CompletableFuture<Object> eval(RedisClusterAsyncCommands<byte[], byte[]> redis, LuaScript script,
            byte[][] keys, byte[][] args) {
        ScriptBatcher batcher = batchedScripts ? nodes(redis).batcher : null; // no look-up on the default path
        return batcher != null ? batcher.eval(script, keys, args)
                : connection.watch(ScriptBatcher.eval(redis, script, keys, args));
    }

    @Override
    public CompletableFuture<Long> publish(byte[] channel, byte[] message) {
        return connection.watch(connection.commands()
                .thenCompose(redis -> redis.publish(channel, message).toCompletableFuture()));
    }

    @Override
    public CompletableFuture<RedisNode> node(byte[] key) {
        return connection.commands().thenCompose(redis -> nodeOf(redis, key));
    }

    /**
     * The master serving the key, on the connection its writes use: the connection itself off Cluster; on Cluster
     * the one Lettuce's slot routing uses for that master ({@code getConnectionAsync(host, port)}, the same
     * {@code ConnectionKey(WRITE, host, port)}), not {@code getConnection(nodeId)}, which is another TCP connection
     * whose {@code WAIT} would cover none of the lock's writes. Kept per connection, so that a replaced connection
     * starts afresh. Behind Sentinel the master always counts as replicated (see {@link LettuceNode}).
     */
    private CompletableFuture<RedisNode> nodeOf(RedisClusterAsyncCommands<byte[], byte[]> redis, byte[] key) {
        Nodes known = nodes(redis);
        CommandWatch watch = connection::watch;
        if (redis instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
            RedisClusterNode master = cluster.getStatefulConnection().getPartitions()
                    .getPartitionBySlot(SlotHash.getSlot(key));
            if (master == null || master.getUri() == null) {
                throw new IllegalStateException("No Redis Cluster master is known for slot " + SlotHash.getSlot(key));
            }
            RedisURI uri = master.getUri();
            String address = uri.getHost() + ":" + uri.getPort();
            // Connected asynchronously: this runs on Lettuce's event loop too (a release message's hand-over check),
            // where getConnection(host, port), which waits for the connection, hung a campaign's node for good.
            CompletableFuture<RedisNode> node = known.byAddress.computeIfAbsent(address, at -> cluster
                    .getStatefulConnection().getConnectionAsync(uri.getHost(), uri.getPort())
                    .thenApply(connected -> new LettuceNode(connected.async(), "Redis Cluster master " + at, watch,
                            this::refreshSlots, false, replicaLog, null)));
            if (!node.isDone() || node.isCompletedExceptionally()) { // outside computeIfAbsent: it may fail at once
                node.whenComplete((made, failure) -> {
                    if (failure != null) {
                        known.byAddress.remove(address, node); // the next call connects again
                    }
                });
            }
            return node;
        }
        return known.byAddress.computeIfAbsent("", at -> CompletableFuture.completedFuture(new LettuceNode(redis,
                "the Redis master", watch, () -> {
                }, connection.isSentinel(), replicaLog, known.batcher)));
    }

    /** The masters and the script batcher of the connection, made anew for a replaced connection. */
    private Nodes nodes(RedisClusterAsyncCommands<byte[], byte[]> redis) {
        Nodes known = nodes;
        if (known == null || known.connection != redis) {
            synchronized (this) {
                known = nodes;
                if (known == null || known.connection != redis) {
                    known = new Nodes(redis, new ConcurrentHashMap<>(), !batchedScripts
                            || redis instanceof RedisAdvancedClusterAsyncCommands ? null
                                    : new ScriptBatcher(redis, connection::watch));
                    nodes = known;
                }
            }
        }
        return known;
    }

    /** After a {@code MOVED}: the slot map is stale, ask the cluster for it again (once at a time). */
    private void refreshSlots() {
        if (factory.getRequiredNativeClient() instanceof RedisClusterClient client
                && !client.isTopologyRefreshInProgress()) {
            client.refreshPartitionsAsync();
        }
    }

    /** The masters reached on one lock connection, and its script batcher (null without batched scripts). */
    private record Nodes(RedisClusterAsyncCommands<byte[], byte[]> connection,
            ConcurrentMap<String, CompletableFuture<RedisNode>> byAddress, @Nullable ScriptBatcher batcher) {
    }

    @Override
    public CompletableFuture<String> ping() {
        return connection.watch(connection.commands().thenCompose(redis -> redis.ping().toCompletableFuture()));
    }

    @Override
    public boolean isCluster() {
        return factory.isClusterAware();
    }

    @Override
    public void close() {
        connection.close();
    }
}
