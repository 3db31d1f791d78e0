package dev.distlock;

/**
 * What the caller sees, when the work returns, if the lease of its lock was lost while the work ran
 * ({@code distlock.on-lease-lost}, or per call {@link LockOptions#withOnLeaseLost}). The loss itself is always logged
 * at WARN and counted.
 */
public enum OnLeaseLost {

    /** Log and count only; the work's result is returned. The default. */
    LOG,

    /** Throw {@link LeaseLostException} from the release, so the caller knows exclusion was not guaranteed. */
    THROW,

    /**
     * Stop the work at the loss, then throw {@link LeaseLostException} as {@link #THROW} does. In a scope
     * ({@link LockService#executeWithLock}, {@link LockService#callWithLock}, a blocking {@code @DistributedLock}
     * method) the thread running it is interrupted while it is still inside the scope; the interrupt the loss caused
     * is taken back when the scope ends, and the caller gets the exception instead of whatever the interrupted work
     * threw. An annotated method's {@code Mono}/{@code Flux} subscription or {@code suspend} coroutine is cancelled,
     * and its {@code CompletionStage} completes exceptionally at once. A handle from {@link LockService#lock} outside
     * a scope has no work to stop: it behaves as {@link #THROW} ({@link LockHandle#whenLost} stops work of one's own).
     */
    INTERRUPT
}
