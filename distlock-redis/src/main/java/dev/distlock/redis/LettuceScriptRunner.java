package dev.distlock.redis;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The one Lettuce connection the lock path uses, opened lazily through Spring Data Redis (so
 * {@code spring.data.redis.*} — host, Sentinel, Cluster, password, ACL user, TLS — applies unchanged).
 * <p>
 * Opening a connection can block for Lettuce's connect timeout when Redis is down; it runs on another thread so
 * that callers wait no longer than the command timeout. Once open, Lettuce reconnects by itself, so a Redis restart
 * needs no action here.
 */
final class LockConnection implements AutoCloseable {

    private final LettuceConnectionFactory factory;

    private RedisConnection connection;

    private volatile RedisClusterAsyncCommands<byte[], byte[]> commands;

    private CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> opening;

    private boolean closed;

    LockConnection(LettuceConnectionFactory factory) {
        this.factory = factory;
    }

    /**
     * @param timeoutNanos how long to wait for the connection to open
     * @return the async commands of the open connection
     * @throws TimeoutException when the connection does not open in time
     * @throws ExecutionException when opening failed
     * @throws InterruptedException when interrupted while waiting
     */
    RedisClusterAsyncCommands<byte[], byte[]> commands(long timeoutNanos)
            throws TimeoutException, ExecutionException, InterruptedException {
        RedisClusterAsyncCommands<byte[], byte[]> open = commands;
        return open != null ? open : opening().get(timeoutNanos, TimeUnit.NANOSECONDS);
    }

    private synchronized CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> opening() {
        if (commands != null) {
            return CompletableFuture.completedFuture(commands);
        }
        if (closed) {
            return CompletableFuture.failedFuture(new IllegalStateException("The lock service is shut down"));
        }
        if (opening == null) {
            CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> attempt = CompletableFuture
                    .supplyAsync(this::open);
            opening = attempt;
            // A failed attempt is forgotten so that the next call tries again (Redis may be back).
            attempt.whenComplete((result, ex) -> {
                synchronized (this) {
                    if (opening == attempt) {
                        opening = null;
                    }
                }
            });
        }
        return opening;
    }

    @SuppressWarnings("unchecked")
    private RedisClusterAsyncCommands<byte[], byte[]> open() {
        RedisConnection opened = factory.getConnection();
        synchronized (this) {
            if (closed) {
                opened.close();
                throw new IllegalStateException("The lock service is shut down");
            }
            connection = opened;
            commands = (RedisClusterAsyncCommands<byte[], byte[]>) opened.getNativeConnection();
            return commands;
        }
    }

    /** @return true when Redis Cluster is used, so batches must not mix hash slots */
    boolean isCluster() {
        return factory.isClusterAware();
    }

    @Override
    public synchronized void close() {
        closed = true;
        if (connection != null) {
            connection.close();
            connection = null;
            commands = null;
        }
    }
}
