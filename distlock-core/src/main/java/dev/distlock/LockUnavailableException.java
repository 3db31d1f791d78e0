package dev.distlock;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The lock store could not be reached, did not answer within the command timeout, or answered an error. The
 * protected work did not run. {@link #lockNames()} and {@link #method()} say which locks and, for
 * {@code @DistributedLock}, which method, where known.
 */
public class LockUnavailableException extends LockException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message which lock and what failed
     */
    public LockUnavailableException(String message) {
        super(message);
    }

    /**
     * @param message which lock and what failed
     * @param cause the underlying failure
     */
    public LockUnavailableException(String message, Throwable cause) {
        super(message, cause);
    }

    /**
     * @param message which lock and what failed
     * @param lockNames the locks that could not be taken; empty when none is known
     * @param waitTime the wait that applied, or {@code null} when unknown
     * @param method the annotated method ({@code SimpleClassName.methodName}), or {@code null} for a programmatic
     *        call
     * @param cause the underlying failure, or {@code null}
     */
    public LockUnavailableException(String message, List<String> lockNames, @Nullable Duration waitTime,
            @Nullable String method, @Nullable Throwable cause) {
        super(message, lockNames, waitTime, method, cause);
    }
}
