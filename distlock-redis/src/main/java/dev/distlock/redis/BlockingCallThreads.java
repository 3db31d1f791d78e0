package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;

import dev.distlock.LockUnavailableException;

/**
 * The threads that run blocking Redis calls for {@link ConnectionRunner}: at most {@code maxThreads} (one per pooled
 * connection: more would only wait for a connection that is not there) and {@code maxQueued} calls waiting for one.
 * When both are taken — the application has exhausted the connection pool, whose borrow waits forever by default, or
 * Redis is stalled — a call fails at once with {@link LockUnavailableException} instead of starting yet another
 * thread. A queued call whose caller has given up (older than the command timeout) is dropped, not sent late.
 */
final class BlockingCallThreads {

    private final ThreadPoolExecutor executor;

    private final int maxThreads;

    private final int maxQueued;

    private final long timeoutNanos;

    /**
     * @param maxThreads the most calls running at once
     * @param maxQueued the most calls waiting for a thread
     * @param commandTimeout how long a caller waits for a call; a call still queued after that is dropped
     */
    BlockingCallThreads(int maxThreads, int maxQueued, Duration commandTimeout) {
        if (maxThreads < 1 || maxQueued < 1) {
            throw new IllegalArgumentException("BlockingCallThreads needs at least one thread and one queue slot: maxThreads="
                    + maxThreads + ", maxQueued=" + maxQueued);
        }
        this.maxThreads = maxThreads;
        this.maxQueued = maxQueued;
        this.timeoutNanos = commandTimeout.toNanos();
        AtomicInteger count = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(maxThreads, maxThreads, 60, TimeUnit.SECONDS,
                new ArrayBlockingQueue<>(maxQueued), runnable -> {
                    Thread thread = new Thread(runnable, "distlock-redis-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                }, new ThreadPoolExecutor.AbortPolicy());
        this.executor.allowCoreThreadTimeOut(true); // idle threads end
    }

    /**
     * @param call the blocking call
     * @return its result; failed with {@link LockUnavailableException} when every thread and queue slot is taken
     */
    <T> CompletableFuture<T> submit(Supplier<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        long queued = System.nanoTime();
        try {
            executor.execute(() -> {
                if (System.nanoTime() - queued > timeoutNanos) {
                    result.completeExceptionally(new LockUnavailableException("A Redis call waited longer than "
                            + "distlock.command-timeout for a thread of the lock path and was dropped"));
                    return;
                }
                try {
                    result.complete(call.get());
                }
                catch (Throwable ex) {
                    result.completeExceptionally(ex);
                }
            });
        }
        catch (RejectedExecutionException ex) {
            if (executor.isShutdown()) {
                result.completeExceptionally(new IllegalStateException("The lock store is closed", ex));
                return result;
            }
            result.completeExceptionally(new LockUnavailableException("The Redis lock path is saturated: "
                    + maxThreads + (maxThreads == 1 ? " thread" : " threads") + " busy and " + maxQueued
                    + " queued calls waiting (connection pool exhausted, e.g. spring.data.redis.jedis.pool.max-active, "
                    + "or Redis stalled)", ex));
        }
        return result;
    }

    /** Lets running calls finish and refuses new ones. */
    void shutdown() {
        executor.shutdown();
    }
}
