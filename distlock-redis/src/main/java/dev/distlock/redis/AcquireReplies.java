package dev.distlock.redis;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;

import dev.distlock.LockUnavailableException;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * How {@link RedisLockStore} reads the replies of {@code acquire.lua}, and chains the stages of an acquire with as few
 * hops as it can.
 */
final class AcquireReplies {

    /** A refusal carries the server clock in ms times this plus the retry delay (1 to 1023 ms): see acquire.lua. */
    private static final long REFUSAL_RADIX = 1024;

    private AcquireReplies() {
    }

    /**
     * {@code thenCompose}, applied at once when the stage is already complete, as the master's node and its replica
     * count nearly always are: each stage an acquire passes through costs its thread hop or relay on the reply's way
     * back (issue 22, step 3). Like {@code thenCompose}, a failure of {@code next} is the answer, never thrown: the
     * engine turns failed answers into {@code LockUnavailableException}.
     */
    static <T, R> CompletableFuture<R> composeNow(CompletableFuture<T> stage,
            Function<T, CompletableFuture<R>> next) {
        if (!stage.isDone() || stage.isCompletedExceptionally()) {
            return stage.thenCompose(next);
        }
        try {
            return next.apply(stage.join());
        }
        catch (RuntimeException ex) {
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * The answer to an acquire, in one stage on the reply's way back.
     *
     * @param request the request
     * @param reply the script's reply, when it came
     * @param error why it did not
     * @return the attempt the acquire script answered: the fencing token, or minus (the server clock in ms times
     *         {@value #REFUSAL_RADIX} plus the milliseconds to wait)
     * @throws dev.distlock.LockException when the name is held with another number of permits
     */
    static Attempt attempt(LockRequest request, @Nullable Object reply, @Nullable Throwable error) {
        if (error != null) {
            int heldWith = RedisErrors.permitsHeldWith(error);
            if (heldWith > 0) {
                throw request.permitsMismatch(heldWith);
            }
            throw error instanceof CompletionException completion ? completion : new CompletionException(error);
        }
        long value = (Long) Objects.requireNonNull(reply, "acquire.lua answers an integer");
        if (value > 0) {
            return Attempt.granted(value);
        }
        long refusal = -value;
        return new Attempt.Busy(Duration.ofMillis(refusal % REFUSAL_RADIX),
                OptionalLong.of(refusal / REFUSAL_RADIX * 1000));
    }

    /**
     * @param request an acquire whose write reached too few replicas
     * @param replicas how many acknowledged it
     * @param required how many had to
     * @param config the settings
     * @return the failure, naming the settings involved; the engine undoes the acquire
     */
    static LockUnavailableException unacknowledged(LockRequest request, long replicas, int required,
            RedisLockConfig config) {
        return new LockUnavailableException("Lock '" + request.name() + "' was written to the Redis master but only "
                + replicas + " of " + required + " replicas acknowledged it (distlock.replication.min-replicas="
                + config.minReplicas() + ") within distlock.replication.timeout ("
                + config.replicationTimeout().toMillis() + " ms); the acquire is undone");
    }
}
