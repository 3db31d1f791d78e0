package dev.distlock.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockUnavailableException;

/**
 * The one bounded pool that turns a blocking client's calls (JDBC, Jedis, a synchronous driver) into the stages a
 * {@link LockStore} answers with: the calling thread never blocks on the network, as the SPI requires.
 * <p>
 * Bounded twice, so that a database or server that hangs (or a client pool that is exhausted, whose borrow may wait
 * forever) costs a bounded number of threads and fails calls closed at once instead: at most {@code maxThreads} calls
 * run, at most {@code maxQueued} wait for a thread, and beyond that a call fails with
 * {@link LockUnavailableException} saying so. A queued call whose caller has given up (queued longer than
 * {@code dropAfter}, the command timeout) is dropped, not sent late; a call whose stage was completed before it began
 * (cancelled by whoever holds it) does nothing at all. Threads are daemons and end when idle for a minute.
 * <p>
 * A call's stage completes on the pool's thread: the engine allows that (see {@link LockStore}).
 */
public final class BlockingCalls implements AutoCloseable {

    private final ThreadPoolExecutor executor;

    private final String client;

    private final int maxThreads;

    private final int maxQueued;

    private final long dropAfterNanos;

    private final String saturationHint;

    /**
     * @param client what the calls go to, for thread names ({@code distlock-<client>-<n>}) and messages
     * @param maxThreads the most calls running at once, at least 1 (e.g. the client's pool size: more would only
     *        wait for a connection that is not there)
     * @param maxQueued the most calls waiting for a thread; 0 for none (threads are then made only when none is idle)
     * @param dropAfter how long a caller waits for a call: one still queued after that is dropped
     * @param saturationHint what to look at when the pool is saturated, for the message (e.g. the client pool's
     *        property)
     */
    public BlockingCalls(String client, int maxThreads, int maxQueued, Duration dropAfter, String saturationHint) {
        Objects.requireNonNull(client, "client");
        this.saturationHint = Objects.requireNonNull(saturationHint, "saturationHint");
        if (maxThreads < 1 || maxQueued < 0) {
            throw new IllegalArgumentException("BlockingCalls needs at least one thread and no negative queue: "
                    + "maxThreads=" + maxThreads + ", maxQueued=" + maxQueued);
        }
        this.client = client;
        this.maxThreads = maxThreads;
        this.maxQueued = maxQueued;
        this.dropAfterNanos = dropAfter.toNanos();
        AtomicInteger count = new AtomicInteger();
        BlockingQueue<Runnable> queue = maxQueued == 0 ? new SynchronousQueue<>() : new ArrayBlockingQueue<>(maxQueued);
        // With a queue, every thread up to the bound is started before calls queue; without, idle threads are reused.
        this.executor = new ThreadPoolExecutor(maxQueued == 0 ? 0 : maxThreads, maxThreads, 60, TimeUnit.SECONDS,
                queue, runnable -> {
                    Thread thread = new Thread(runnable, "distlock-" + client + "-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                }, new ThreadPoolExecutor.AbortPolicy());
        this.executor.allowCoreThreadTimeOut(true);
    }

    /**
     * @param what what the call does, for messages ("acquire lock 'a'")
     * @param call the blocking call
     * @return its result or failure; failed with {@link LockUnavailableException} when every thread and queue slot
     *         is taken, when it waited too long for a thread, or when this pool is closed
     */
    public <T> CompletableFuture<T> submit(String what, Callable<T> call) {
        CompletableFuture<T> result = new CompletableFuture<>();
        long queued = System.nanoTime();
        try {
            executor.execute(() -> {
                if (result.isDone()) {
                    return; // cancelled by whoever holds the stage before it began: do nothing at all
                }
                if (System.nanoTime() - queued > dropAfterNanos) {
                    result.completeExceptionally(new LockUnavailableException("Could not " + what + ": the call "
                            + "waited longer than distlock.command-timeout for a thread and was dropped"));
                    return;
                }
                try {
                    result.complete(call.call());
                }
                catch (Throwable ex) {
                    result.completeExceptionally(ex);
                }
            });
        }
        catch (RejectedExecutionException ex) {
            result.completeExceptionally(new LockUnavailableException("Could not " + what + ": "
                    + (executor.isShutdown() ? "the lock store is closed" : "the " + client + " lock path is "
                            + "saturated, " + maxThreads + (maxThreads == 1 ? " thread" : " threads") + " busy and "
                            + maxQueued + " queued calls waiting (" + saturationHint + ")"), ex));
        }
        return result;
    }

    /** Stops taking calls; calls under way finish on their threads. */
    @Override
    public void close() {
        executor.shutdown();
    }
}
