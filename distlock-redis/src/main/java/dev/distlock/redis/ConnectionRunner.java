package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;

import dev.distlock.spi.BlockingCalls;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.util.ClassUtils;

/**
 * The lock path through Spring Data Redis' generic connection API, for clients without a native asynchronous
 * connection (Jedis). Each call borrows a connection from the factory's pool and runs on a distlock thread; its
 * future is the answer, so the caller is never blocked and a follow-up (the undo of a late acquire) chained on it
 * runs after it. The threads are bounded by the pool's size and fail closed when taken (see
 * {@link BlockingCalls}).
 */
final class ConnectionRunner implements RedisRunner {

    private static final boolean JEDIS_PRESENT = ClassUtils.isPresent(
            "org.springframework.data.redis.connection.jedis.JedisConnectionFactory",
            ConnectionRunner.class.getClassLoader())
            && ClassUtils.isPresent("redis.clients.jedis.Jedis", ConnectionRunner.class.getClassLoader());

    private final RedisConnectionFactory factory;

    private final boolean cluster;

    /** Threads when the factory's pool size is unknown (no pool, or an unbounded one). */
    private static final int DEFAULT_THREADS = 64;

    /** Calls that may wait for a thread; beyond that a call fails closed at once. */
    private static final int MAX_QUEUED = 1000;

    private final BlockingCalls calls;

    /**
     * @param factory the application's connection factory
     * @param commandTimeout the command timeout (a call still queued after it is dropped)
     */
    ConnectionRunner(RedisConnectionFactory factory, Duration commandTimeout) {
        this(factory, commandTimeout, JEDIS_PRESENT ? JedisCluster.pooledConnections(factory) : DEFAULT_THREADS,
                MAX_QUEUED);
    }

    ConnectionRunner(RedisConnectionFactory factory, Duration commandTimeout, int maxThreads, int maxQueued) {
        this.factory = factory;
        this.cluster = JEDIS_PRESENT && JedisCluster.isCluster(factory);
        // Bounded: with the pool exhausted every call would otherwise park one more thread on the borrow (see
        // BlockingCalls). Idle threads end.
        this.calls = new BlockingCalls("redis", maxThreads, maxQueued, commandTimeout, "the connection pool is "
                + "exhausted (e.g. spring.data.redis.jedis.pool.max-active), or Redis stalled");
    }

    @Override
    public CompletableFuture<Object> eval(LuaScript script, byte[][] keys, byte[]... args) {
        byte[][] keysAndArgs = new byte[keys.length + args.length][];
        System.arraycopy(keys, 0, keysAndArgs, 0, keys.length);
        System.arraycopy(args, 0, keysAndArgs, keys.length, args.length);
        ReturnType type = script.multiReply() ? ReturnType.MULTI : ReturnType.INTEGER;
        return call(connection -> {
            try {
                return connection.scriptingCommands().evalSha(script.sha1(), type, keys.length, keysAndArgs);
            }
            catch (RuntimeException ex) {
                if (!LuaScript.isNoScript(ex)) {
                    throw ex;
                }
                return connection.scriptingCommands().eval(script.body(), type, keys.length, keysAndArgs);
            }
        });
    }

    @Override
    public CompletableFuture<Long> publish(byte[] channel, byte[] message) {
        return call(connection -> connection.publish(channel, message));
    }

    @Override
    public CompletableFuture<String> ping() {
        return call(RedisConnection::ping);
    }

    @Override
    public boolean isCluster() {
        return cluster;
    }

    private <T> CompletableFuture<T> call(Function<RedisConnection, @Nullable T> command) {
        return calls.submit("call Redis", () -> {
            try (RedisConnection connection = cluster ? factory.getClusterConnection() : factory.getConnection()) {
                T reply = command.apply(connection);
                if (reply == null) {
                    throw new IllegalStateException("Redis sent no reply");
                }
                return reply;
            }
        });
    }

    @Override
    public void close() {
        calls.close();
    }

    /** Kept apart so that the Jedis classes are loaded only when present. */
    private static final class JedisCluster {

        /** @return the pool's maximum of connections, or the default when there is no bounded pool */
        static int pooledConnections(RedisConnectionFactory factory) {
            if (factory instanceof org.springframework.data.redis.connection.jedis.JedisConnectionFactory jedis
                    && jedis.getUsePool() && jedis.getPoolConfig() != null && jedis.getPoolConfig().getMaxTotal() > 0) {
                return jedis.getPoolConfig().getMaxTotal();
            }
            return DEFAULT_THREADS;
        }

        static boolean isCluster(RedisConnectionFactory factory) {
            return factory instanceof org.springframework.data.redis.connection.jedis.JedisConnectionFactory jedis
                    && jedis.isRedisClusterAware();
        }
    }
}
