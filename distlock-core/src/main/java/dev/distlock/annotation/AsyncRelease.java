package dev.distlock.annotation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.Executor;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockHandle;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Holds a lock until a returned {@code CompletionStage} completes and releases it on a distlock thread: a release
 * waits for the store, and the thread that completes a stage may be a client's event loop that must never block
 * (it could even be the one that has to deliver the release's own reply).
 */
final class AsyncRelease {

    private static final Logger logger = LoggerFactory.getLogger(AsyncRelease.class);

    /** Threads exist only while releases are in flight; idle ones end after a minute. */
    private static final Executor RELEASES = releaseExecutor();

    private AsyncRelease() {
    }

    /**
     * Returns a future that completes like the method's, after the lock was released, so that whoever sees it
     * complete can take the lock at once. Cancelling it cancels the method's future and releases the lock.
     */
    static CompletableFuture<@Nullable Object> holdUntilComplete(CompletionStage<?> stage, LockHandle handle) {
        CompletableFuture<@Nullable Object> returned = new CompletableFuture<>();
        stage.whenCompleteAsync((value, error) -> {
            Throwable failure = error;
            try {
                handle.unlock();
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
        returned.whenComplete((value, error) -> {
            if (returned.isCancelled()) {
                cancel(stage);
                RELEASES.execute(() -> releaseQuietly(handle));
            }
        });
        return returned;
    }

    private static void cancel(CompletionStage<?> stage) {
        try {
            stage.toCompletableFuture().cancel(true);
        }
        catch (UnsupportedOperationException ex) {
            // A stage that cannot be cancelled keeps running; the lock is released anyway, as for any cancel.
        }
    }

    private static void releaseQuietly(LockHandle handle) {
        try {
            handle.unlock();
        }
        catch (RuntimeException ex) {
            logger.warn("Releasing lock '{}' after cancellation failed", handle.name(), ex);
        }
    }

    private static Executor releaseExecutor() {
        AtomicInteger count = new AtomicInteger();
        ThreadPoolExecutor executor = new ThreadPoolExecutor(0, Integer.MAX_VALUE, 60, TimeUnit.SECONDS,
                new SynchronousQueue<>(), runnable -> {
                    Thread thread = new Thread(runnable, "distlock-release-" + count.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
        return executor;
    }
}
