package dev.distlock.campaign;

import dev.distlock.LeaseLostException;
import dev.distlock.LockException;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;

/** How a lock call failed, from the exception it threw; {@link #UNTYPED} is a campaign violation. */
enum FailureKind {
    /** {@link LockTimeoutException}, or an empty {@code tryLock}: the wait ran out. */
    TIMEOUT,
    /** {@link LockUnavailableException}: the store could not be reached or could not confirm. */
    UNAVAILABLE,
    /** {@link LeaseLostException}. */
    LEASE_LOST,
    /** Another {@link LockException}. */
    OTHER_TYPED,
    /** Anything else: the API promises typed exceptions only. */
    UNTYPED;

    static FailureKind of(Throwable failure) {
        if (failure instanceof LockTimeoutException) {
            return TIMEOUT;
        }
        if (failure instanceof LockUnavailableException) {
            return UNAVAILABLE;
        }
        if (failure instanceof LeaseLostException) {
            return LEASE_LOST;
        }
        return failure instanceof LockException ? OTHER_TYPED : UNTYPED;
    }
}
