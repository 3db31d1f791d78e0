package dev.distlock.annotation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.Future;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LeaseLostException;
import dev.distlock.MultiLockHandle;
import org.jspecify.annotations.Nullable;

/**
 * Holds a lock until a returned {@code CompletionStage} completes and releases it on a distlock thread: a release
 * waits for the store, and the thread that completes a stage may be a client's event loop that must never block
 * (it could even be the one that has to deliver the release's own reply). Only when {@value #RELEASE_THREADS}
 * releases are running and {@value #RELEASE_QUEUE} wait does the completing thread run one itself.
 */
final class AsyncRelease {

    /** Releases that run at once, each on a thread of its own. */
    static final int RELEASE_THREADS = 4;

    /** Releases that wait for a thread; when they are this many, the completing thread runs the next one itself. */
    static final int RELEASE_QUEUE = 4096;

    /** Threads exist only while releases are in flight; idle ones end after a minute. Bounded, see below. */
    private static final Executor RELEASES = releaseExecutor();

    private AsyncRelease() {
    }

    /**
     * @return the bounded release pool, also used for the releases of reactive and suspending methods: their lock
     *         waits occupy bounded-elastic threads, so a release queued behind them would wait as long as they do
     */
    static Executor releases() {
        return RELEASES;
    }

    /**
     * Returns a future that completes like the method's, after the lock was released, so that whoever sees it
     * complete can take the lock at once. Cancelling it completes it as cancelled but neither cancels the method's
     * stage nor releases the lock: cancelling a {@code CompletableFuture} does not stop the work that was going to
     * complete it (WebFlux cancels on every client disconnect), so the lock is held until the method's own stage
     * completes. The one exception is a lease lost with {@link dev.distlock.OnLeaseLost#INTERRUPT}: the returned
     * future completes with {@link dev.distlock.LeaseLostException} then, before the release.
     */
    static CompletableFuture<@Nullable Object> holdUntilComplete(CompletionStage<?> stage, MultiLockHandle locks) {
        CompletableFuture<@Nullable Object> returned = new CompletableFuture<>();
        // At a loss with OnLeaseLost.INTERRUPT the method's own future (which may be what stops the work: a
        // FutureTask interrupts its thread) is cancelled, and only then does the caller learn of the loss, so that
        // whoever sees the returned future fail knows the work was told to stop. The lock is released when the
        // method's stage completes, as ever. The loss is kept first: the cancellation completes the stage, whose
        // release (on another thread) may complete the returned future before this thread does, and it must do so
        // with the loss, not with the cancellation.
        AtomicReference<@Nullable LeaseLostException> loss = new AtomicReference<>();
        LossStops stops = LossStops.wanted(locks) ? LossStops.watch(locks, RELEASES, lost -> {
            loss.set(lost);
            if (stage instanceof Future<?> future) {
                future.cancel(true);
            }
            returned.completeExceptionally(lost);
        }) : null;
        stage.whenCompleteAsync((value, error) -> {
            if (stops != null) {
                stops.end();
            }
            Throwable failure = loss.get() != null ? loss.get() : error;
            try {
                locks.unlock();
            }
            catch (RuntimeException ex) {
                if (failure == null) {
                    failure = ex;
                }
                else {
                    failure.addSuppressed(ex);
                }
            }
            if (failure != null) {
                returned.completeExceptionally(failure);
            }
            else {
                returned.complete(value);
            }
        }, RELEASES);
        return returned;
    }

    /**
     * A few threads and a bounded queue: a release blocks for up to {@code distlock.command-timeout} while the store
     * is slow, and a thread per release would mean thousands of threads then. When the queue is full, the thread
     * completing the stage runs the release itself, which slows the producer down and never drops a release.
     */
    private static Executor releaseExecutor() {
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(RELEASE_THREADS, RELEASE_THREADS, 60, TimeUnit.SECONDS,
                new LinkedBlockingQueue<>(RELEASE_QUEUE), runnable -> {
                    Thread thread = new Thread(runnable, "distlock-release-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                }, new ThreadPoolExecutor.CallerRunsPolicy());
        executor.allowCoreThreadTimeOut(true);
        return executor;
    }
}
