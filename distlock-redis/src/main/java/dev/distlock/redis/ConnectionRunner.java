package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;

import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.ReturnType;
import org.springframework.util.ClassUtils;

/**
 * The lock path through Spring Data Redis' generic connection API, for clients without a native asynchronous
 * connection (Jedis). Each call borrows a connection from the factory's pool and runs on a distlock thread, so
 * that the caller can still give up after the command timeout; a call's follow-up (the release of an abandoned
 * acquire) is chained on its completion and so runs after it.
 */
final class ConnectionRunner implements RedisRunner {

    private static final boolean JEDIS_PRESENT = ClassUtils.isPresent(
            "org.springframework.data.redis.connection.jedis.JedisConnectionFactory",
            ConnectionRunner.class.getClassLoader())
            && ClassUtils.isPresent("redis.clients.jedis.Jedis", ConnectionRunner.class.getClassLoader());

    private final RedisConnectionFactory factory;

    private final boolean cluster;

    private final ExecutorService executor;

    ConnectionRunner(RedisConnectionFactory factory) {
        this.factory = factory;
        this.cluster = JEDIS_PRESENT && JedisCluster.isCluster(factory);
        AtomicInteger count = new AtomicInteger();
        // Threads exist only while calls are in flight (at most one per calling thread); idle ones end.
        this.executor = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS, new SynchronousQueue<>(),
                runnable -> {
                    Thread thread = new Thread(runnable, "distlock-redis-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
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
        return CompletableFuture.supplyAsync(() -> {
            try (RedisConnection connection = cluster ? factory.getClusterConnection() : factory.getConnection()) {
                T reply = command.apply(connection);
                if (reply == null) {
                    throw new IllegalStateException("Redis sent no reply");
                }
                return reply;
            }
        }, executor);
    }

    @Override
    public void close() {
        executor.shutdown();
    }

    /** Kept apart so that the Jedis classes are loaded only when present. */
    private static final class JedisCluster {

        static boolean isCluster(RedisConnectionFactory factory) {
            return factory instanceof org.springframework.data.redis.connection.jedis.JedisConnectionFactory jedis
                    && jedis.isRedisClusterAware();
        }
    }
}
