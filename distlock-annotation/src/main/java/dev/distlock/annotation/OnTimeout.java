package dev.distlock.annotation;

/**
 * What a {@link DistributedLock @DistributedLock} method does when its lock is not acquired within the wait time.
 */
public enum OnTimeout {

    /** Throw {@link dev.distlock.LockTimeoutException}; the method is not called. The default. */
    THROW,

    /**
     * Do not call the method and return an empty value: {@code null}, {@code Optional.empty()}, an empty
     * collection, map, array or stream, the primitive default ({@code 0}, {@code false}), a completed
     * {@code CompletableFuture} of {@code null}, or an empty {@code Mono}/{@code Flux}.
     */
    SKIP
}
