package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;

import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The lock path on one Lettuce connection, opened lazily through Spring Data Redis (so {@code spring.data.redis.*}
 * — host, Sentinel, Cluster, password, ACL user, TLS — applies unchanged) and used asynchronously: every thread's
 * commands are multiplexed on it, and commands of one caller run in Redis in the order they were sent.
 * <p>
 * Opening a connection can block for the client's connect timeout when Redis is down; it runs on a thread of its
 * own (never a common-pool worker) and callers wait for it no longer than their command timeout. Once open,
 * Lettuce reconnects by itself.
 */
final class LettuceRunner implements RedisRunner {

    private final LettuceConnectionFactory factory;

    private @Nullable RedisConnection connection;

    private volatile @Nullable RedisClusterAsyncCommands<byte[], byte[]> commands;

    private @Nullable CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> opening;

    private boolean closed;

    LettuceRunner(LettuceConnectionFactory factory) {
        this.factory = factory;
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, byte[][] keys, byte[]... args) {
        RedisClusterAsyncCommands<byte[], byte[]> open = commands;
        if (open != null) {
            return eval(open, script, keys, args); // the hot path: no future for the connection
        }
        return opening().thenCompose(redis -> eval(redis, script, keys, args));
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
        return commands().thenCompose(redis -> redis.publish(channel, message).toCompletableFuture());
    }

    @Override
    public CompletableFuture<String> ping() {
        return commands().thenCompose(redis -> redis.ping().toCompletableFuture());
    }

    @Override
    public boolean isCluster() {
        return factory.isClusterAware();
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
        if (attempt == null) {
            CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> next = new CompletableFuture<>();
            Thread thread = new Thread(() -> open(next), "distlock-redis-connect");
            thread.setDaemon(true);
            thread.start();
            opening = next;
            attempt = next;
        }
        return attempt;
    }

    @SuppressWarnings("unchecked")
    private void open(CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> result) {
        try {
            RedisConnection opened = factory.getConnection();
            synchronized (this) {
                opening = null;
                if (closed) {
                    opened.close();
                    throw new IllegalStateException("The lock store is closed");
                }
                connection = opened;
                commands = (RedisClusterAsyncCommands<byte[], byte[]>) opened.getNativeConnection();
                result.complete(commands);
            }
        }
        catch (RuntimeException ex) {
            synchronized (this) {
                // Forgotten, so that the next call tries again (Redis may be back).
                opening = null;
            }
            result.completeExceptionally(ex);
        }
    }

    @Override
    public synchronized void close() {
        closed = true;
        RedisConnection open = connection;
        if (open != null) {
            open.close();
            connection = null;
            commands = null;
        }
    }
}
