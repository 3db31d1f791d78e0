package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.RedisURI;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisAdvancedClusterAsyncCommands;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The lock path on a Lettuce connection of its own, opened from the application's connection factory's client (so
 * {@code spring.data.redis.*} — host, Sentinel, Cluster, password, ACL user, TLS, database — applies unchanged) and
 * used asynchronously: every thread's lock commands are multiplexed on it, in the order they were sent. A
 * connection of its own keeps the application's traffic and the lock's {@code WAIT} from blocking each other.
 * <p>
 * Opening a connection can block for the client's connect timeout when Redis is down; it runs on a thread of its
 * own (never a common-pool worker) and commands sent meanwhile follow it. Once open, Lettuce reconnects by itself —
 * to the same address. Behind Sentinel the master can move while the old one is frozen or demoted to a replica; the
 * connection is then replaced, which asks the Sentinels for the master again. The runner notices that itself: a
 * command still unanswered after the command timeout, on a connection that answered nothing for twice as long, means
 * the connection is stuck.
 */
final class LettuceRunner implements RedisRunner {

    private static final Logger log = LoggerFactory.getLogger(LettuceRunner.class);

    /** How long after a failed master check the next open may start (Sentinels catch up within a second or so). */
    private static final long RECHECK_NANOS = 100_000_000L;

    private final LettuceConnectionFactory factory;

    private final boolean sentinel;

    private final long stuckNanos;

    /** Behind Sentinel, runs the check of a command still unanswered after the command timeout; null otherwise. */
    private final @Nullable Executor afterTimeout;

    /** Behind Sentinel, checks that a new connection reached the master; null otherwise. */
    private final @Nullable SentinelMasterCheck masterCheck;

    private @Nullable RuntimeException failedOpen;

    private long retryOpenAtNanos;

    private @Nullable StatefulConnection<byte[], byte[]> connection;

    private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;

    private @Nullable CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> opening;

    private long openingSinceNanos;

    private volatile long lastReplyNanos = System.nanoTime();

    private boolean closed;

    private volatile @Nullable Nodes nodes;

    private final ReplicaCountLog replicaLog;

    /**
     * @param factory the application's connection factory
     * @param commandTimeout the command timeout; behind Sentinel, a connection that answered nothing for twice as
     *        long while commands timed out is replaced
     * @param replicaLog where the masters' replica counts are reported (one per store)
     */
    LettuceRunner(LettuceConnectionFactory factory, Duration commandTimeout, ReplicaCountLog replicaLog) {
        this.factory = factory;
        this.replicaLog = replicaLog;
        this.sentinel = factory.isRedisSentinelAware();
        this.stuckNanos = 2 * commandTimeout.toNanos();
        this.afterTimeout = sentinel ? CompletableFuture.delayedExecutor(commandTimeout.toNanos(),
                TimeUnit.NANOSECONDS) : null;
        this.masterCheck = sentinel ? new SentinelMasterCheck(factory, commandTimeout) : null;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, byte[][] keys, byte[]... args) {
        RedisClusterAsyncCommands<byte[], byte[]> open = commands;
        return watch(open != null ? eval(open, script, keys, args) // the hot path
                : opening().thenCompose(redis -> eval(redis, script, keys, args)));
    }

    private static CompletableFuture<Object> eval(RedisClusterAsyncCommands<byte[], byte[]> redis, LuaScript script,
            byte[][] keys, byte[][] args) {
        ScriptOutputType output = script.multiReply() ? ScriptOutputType.MULTI : ScriptOutputType.INTEGER;
        return redis.<Object>evalsha(script.sha1(), output, keys, args).toCompletableFuture()
                .exceptionallyCompose(ex -> LuaScript.isNoScript(ex)
                        ? redis.<Object>eval(script.body(), output, keys, args).toCompletableFuture()
                        : CompletableFuture.failedFuture(ex));
    }

    @Override
    public CompletableFuture<Long> publish(byte[] channel, byte[] message) {
        return watch(commands().thenCompose(redis -> redis.publish(channel, message).toCompletableFuture()));
    }

    @Override
    public CompletableFuture<RedisNode> node(byte[] key) {
        return commands().thenApply(redis -> nodeOf(redis, key));
    }

    /**
     * The master serving the key, on the connection its writes use: the connection itself off Cluster; on Cluster
     * the one Lettuce's slot routing uses for that master ({@code getConnection(host, port)}, the same
     * {@code ConnectionKey(WRITE, host, port)}), not {@code getConnection(nodeId)}, which is another TCP connection
     * whose {@code WAIT} would cover none of the lock's writes. Kept per connection, so that a replaced connection
     * starts afresh. Behind Sentinel the master always counts as replicated (see {@link LettuceNode}).
     */
    private RedisNode nodeOf(RedisClusterAsyncCommands<byte[], byte[]> redis, byte[] key) {
        Nodes known = nodes;
        if (known == null || known.connection != redis) {
            synchronized (this) {
                known = nodes;
                if (known == null || known.connection != redis) {
                    known = new Nodes(redis, new ConcurrentHashMap<>());
                    nodes = known;
                }
            }
        }
        if (redis instanceof RedisAdvancedClusterAsyncCommands<byte[], byte[]> cluster) {
            RedisClusterNode master = cluster.getStatefulConnection().getPartitions()
                    .getPartitionBySlot(SlotHash.getSlot(key));
            if (master == null || master.getUri() == null) {
                throw new IllegalStateException("No Redis Cluster master is known for slot " + SlotHash.getSlot(key));
            }
            RedisURI uri = master.getUri();
            String address = uri.getHost() + ":" + uri.getPort();
            return known.byAddress.computeIfAbsent(address, at -> new LettuceNode(
                    cluster.getConnection(uri.getHost(), uri.getPort()), "Redis Cluster master " + at, this::watch,
                    this::refreshSlots, false, replicaLog));
        }
        return known.byAddress.computeIfAbsent("", at -> new LettuceNode(redis, "the Redis master", this::watch,
                () -> {
                }, sentinel, replicaLog));
    }

    /** After a {@code MOVED}: the slot map is stale, ask the cluster for it again (once at a time). */
    private void refreshSlots() {
        if (factory.getRequiredNativeClient() instanceof RedisClusterClient client
                && !client.isTopologyRefreshInProgress()) {
            client.refreshPartitionsAsync();
        }
    }

    /** The masters reached on one lock connection. */
    private record Nodes(RedisClusterAsyncCommands<byte[], byte[]> connection,
            ConcurrentMap<String, RedisNode> byAddress) {
    }

    @Override
    public CompletableFuture<String> ping() {
        return watch(commands().thenCompose(redis -> redis.ping().toCompletableFuture()));
    }

    @Override
    public boolean isCluster() {
        return factory.isClusterAware();
    }

    private void replied(@Nullable Throwable error) {
        if (error == null || RedisErrors.isServerReply(error)) {
            lastReplyNanos = System.nanoTime();
        }
        if (error != null && sentinel && RedisErrors.isReadOnly(error)) {
            replace("the master it was connected to is a replica now");
        }
    }

    /**
     * Watches a command of the lock connection: its reply says the connection works, and behind Sentinel a command
     * still unanswered after the command timeout may show that the connection is stuck on a master that is gone.
     *
     * @param command the command's reply
     * @return the reply, completing once the connection's state has been updated
     */
    <T> CompletableFuture<T> watch(CompletableFuture<T> command) {
        Executor check = afterTimeout;
        if (check != null) {
            check.execute(() -> {
                if (!command.isDone()) {
                    unansweredPastTimeout();
                }
            });
        }
        return command.whenComplete((result, error) -> replied(error));
    }

    /** Replaces the connection when it answered nothing for twice the command timeout. */
    private void unansweredPastTimeout() {
        if (System.nanoTime() - lastReplyNanos > stuckNanos) {
            replace("it answered nothing for " + stuckNanos / 2_000_000L * 2 + " ms");
        }
    }

    /** How {@link LettuceNode} has its commands watched: {@link #watch}. */
    @FunctionalInterface
    interface CommandWatch {

        /**
         * @param command a command's reply
         * @return the reply, completing once the connection's state has been updated
         */
        <T> CompletableFuture<T> watch(CompletableFuture<T> command);
    }

    /** Drops the connection; the next command opens a new one (asking the Sentinels for the master). */
    private synchronized void replace(String why) {
        StatefulConnection<byte[], byte[]> old = connection;
        if (old == null) {
            return;
        }
        log.warn("Replacing the lock connection to Redis: {}", why);
        connection = null;
        commands = null;
        lastReplyNanos = System.nanoTime();
        old.closeAsync();
    }

    private CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> commands() {
        RedisClusterAsyncCommands<byte[], byte[]> open = commands;
        return open != null ? CompletableFuture.completedFuture(open) : opening();
    }

    private synchronized CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> opening() {
        RedisClusterAsyncCommands<byte[], byte[]> open = commands;
        if (open != null) {
            return CompletableFuture.completedFuture(open);
        }
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("The lock store is closed"));
        }
        CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> attempt = opening;
        if (attempt != null && sentinel && System.nanoTime() - openingSinceNanos > stuckNanos) {
            // May hang on a master that does not answer: ask the Sentinels again alongside; whichever attempt
            // reaches a confirmed master first is used (see open).
            attempt = null;
        }
        if (attempt == null && failedOpen != null && System.nanoTime() - retryOpenAtNanos < 0) {
            return CompletableFuture.failedFuture(failedOpen); // a new master check failed just now: not every call
        }
        if (attempt == null) {
            CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> next = new CompletableFuture<>();
            Thread thread = new Thread(() -> open(next), "distlock-redis-connect");
            thread.setDaemon(true);
            thread.start();
            opening = next;
            openingSinceNanos = System.nanoTime();
            attempt = next;
        }
        return attempt;
    }

    private void open(CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> result) {
        StatefulConnection<byte[], byte[]> opened;
        try {
            opened = connect(factory.getRequiredNativeClient());
        }
        catch (RuntimeException ex) {
            openFailed(result, ex);
            return;
        }
        SentinelMasterCheck check = masterCheck;
        if (check == null) {
            install(result, opened);
            return;
        }
        // However long the lookup took (a Sentinel that does not answer, listed first, delays every one): what
        // matters is that the node reached is the master the Sentinels name now.
        check.verify((RedisClient) factory.getRequiredNativeClient(), (StatefulRedisConnection<byte[], byte[]>) opened)
                .whenComplete((verified, error) -> {
                    if (error == null) {
                        install(result, opened);
                        return;
                    }
                    Throwable cause = error instanceof CompletionException && error.getCause() != null
                            ? error.getCause() : error;
                    RuntimeException refused = cause instanceof RuntimeException runtime ? runtime
                            : new IllegalStateException(cause.getMessage(), cause);
                    opened.closeAsync();
                    log.warn("Discarding a new lock connection: {}; asking the Sentinels again", cause.getMessage());
                    synchronized (this) {
                        failedOpen = refused;
                        retryOpenAtNanos = System.nanoTime() + RECHECK_NANOS;
                    }
                    openFailed(result, refused);
                });
    }

    /** Makes a new connection the lock connection, unless another attempt alongside was first. */
    private synchronized void install(CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> result,
            StatefulConnection<byte[], byte[]> opened) {
        if (closed) {
            opened.closeAsync();
            openFailed(result, new IllegalStateException("The lock store is closed"));
            return;
        }
        if (opening == result) {
            opening = null;
        }
        RedisClusterAsyncCommands<byte[], byte[]> already = commands;
        if (already != null) {
            // An attempt started alongside (see opening()) was first: use its connection.
            opened.closeAsync();
            result.complete(already);
            return;
        }
        failedOpen = null;
        connection = opened;
        RedisClusterAsyncCommands<byte[], byte[]> open = opened instanceof StatefulRedisClusterConnection<byte[],
                byte[]> cluster ? cluster.async() : ((StatefulRedisConnection<byte[], byte[]>) opened).async();
        commands = open;
        lastReplyNanos = System.nanoTime();
        result.complete(open);
    }

    private void openFailed(CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> result, Throwable error) {
        synchronized (this) {
            // Forgotten, so that the next call tries again (Redis may be back).
            if (opening == result) {
                opening = null;
            }
            RedisClusterAsyncCommands<byte[], byte[]> already = commands;
            if (already != null && !closed) {
                result.complete(already); // an attempt alongside opened it: what waits here goes out there
                return;
            }
        }
        result.completeExceptionally(error);
    }

    private static StatefulConnection<byte[], byte[]> connect(AbstractRedisClient client) {
        if (client instanceof RedisClusterClient cluster) {
            return cluster.connect(ByteArrayCodec.INSTANCE);
        }
        return ((RedisClient) client).connect(ByteArrayCodec.INSTANCE);
    }

    @Override
    public synchronized void close() {
        closed = true;
        StatefulConnection<byte[], byte[]> open = connection;
        if (open != null) {
            open.close();
            connection = null;
            commands = null;
        }
    }
}
