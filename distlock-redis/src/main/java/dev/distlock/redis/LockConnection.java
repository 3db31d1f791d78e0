package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;
import java.util.concurrent.TimeUnit;

import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulConnection;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.api.async.RedisClusterAsyncCommands;
import io.lettuce.core.codec.ByteArrayCodec;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The one Lettuce connection of a {@link LettuceRunner}: opens it, watches its commands, and replaces it when it is
 * stuck. Kept apart from the commands sent on it, because its state (an open in progress, a failed master check, the
 * last reply) changes under a lock of its own while the commands run lock-free on the hot path.
 * <p>
 * Opening a connection can block for the client's connect timeout when Redis is down; it runs on a thread of its
 * own (never a common-pool worker) and commands sent meanwhile follow it. Once open, Lettuce reconnects by itself —
 * to the same address. Behind Sentinel the master can move while the old one is frozen or demoted to a replica; the
 * connection is then replaced, which asks the Sentinels for the master again. A command still unanswered after the
 * command timeout, on a connection that answered nothing for twice as long, means the connection is stuck.
 */
final class LockConnection implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(LockConnection.class);

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

    /**
     * @param factory the application's connection factory, whose client opens the connection
     * @param commandTimeout the command timeout; behind Sentinel, a connection that answered nothing for twice as
     *        long while commands timed out is replaced
     */
    LockConnection(LettuceConnectionFactory factory, Duration commandTimeout) {
        this.factory = factory;
        this.sentinel = factory.isRedisSentinelAware();
        this.stuckNanos = 2 * commandTimeout.toNanos();
        this.afterTimeout = sentinel ? CompletableFuture.delayedExecutor(commandTimeout.toNanos(),
                TimeUnit.NANOSECONDS) : null;
        this.masterCheck = sentinel ? new SentinelMasterCheck(factory, commandTimeout) : null;
    }

    /** @return true behind Sentinel, where the master can move under the connection */
    boolean isSentinel() {
        return sentinel;
    }

    /** @return the open connection's commands, or null while none is open (the hot path's lock-free look) */
    @Nullable RedisClusterAsyncCommands<byte[], byte[]> openCommands() {
        return commands;
    }

    /** @return the connection's commands, once it is open */
    CompletableFuture<RedisClusterAsyncCommands<byte[], byte[]>> commands() {
        RedisClusterAsyncCommands<byte[], byte[]> open = commands;
        return open != null ? CompletableFuture.completedFuture(open) : opening();
    }

    /**
     * Watches a command of the lock connection: its reply says the connection works, and behind Sentinel a command
     * still unanswered after the command timeout may show that the connection is stuck on a master that is gone.
     *
     * @param command the command's reply
     * @param <T> the reply's type
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

    private void replied(@Nullable Throwable error) {
        if (error == null || RedisErrors.isServerReply(error)) {
            lastReplyNanos = System.nanoTime();
        }
        if (error != null && sentinel && RedisErrors.isReadOnly(error)) {
            replace("the master it was connected to is a replica now");
        }
    }

    /** Replaces the connection when it answered nothing for twice the command timeout. */
    private void unansweredPastTimeout() {
        if (System.nanoTime() - lastReplyNanos > stuckNanos) {
            replace("it answered nothing for " + stuckNanos / 2_000_000L * 2 + " ms");
        }
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

    /** Closes the connection; commands sent afterwards fail, saying the lock store is closed. */
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
