package dev.distlock.jdbc;

import java.util.concurrent.CompletionException;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/** Waits for a store's answer in tests that call the store directly, as the engine would (bounded). */
final class Answers {

    private Answers() {
    }

    /**
     * @param stage a store's answer
     * @return its value, within 10 s
     * @throws RuntimeException the store's own failure (e.g. a {@link dev.distlock.LockUnavailableException})
     */
    static <T> T answer(CompletionStage<T> stage) {
        try {
            return stage.toCompletableFuture().get(10, TimeUnit.SECONDS);
        }
        catch (ExecutionException | CompletionException ex) {
            if (ex.getCause() instanceof RuntimeException failure) {
                throw failure;
            }
            throw new IllegalStateException(ex.getCause());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
        catch (TimeoutException ex) {
            throw new IllegalStateException("The store did not answer within 10 s", ex);
        }
    }
}
