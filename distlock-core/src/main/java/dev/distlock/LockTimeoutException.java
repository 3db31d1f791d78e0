package dev.distlock;

import java.time.Duration;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The lock was not acquired within the wait time. {@link #lockNames()}, {@link #waitTime()} and {@link #method()}
 * say which locks, how long was waited and, for {@code @DistributedLock}, which method.
 */
public class LockTimeoutException extends LockException {

    private static final long serialVersionUID = 1L;

    /**
     * @param message which lock and how long was waited
     */
    public LockTimeoutException(String message) {
        super(message);
    }

    /**
     * @param message which lock and how long was waited
     * @param lockNames the locks not acquired (for several at once: all that were asked for)
     * @param waitTime the wait that elapsed, or {@code null} when unknown
     * @param method the annotated method ({@code SimpleClassName.methodName}), or {@code null} for a programmatic
     *        call
     */
    public LockTimeoutException(String message, List<String> lockNames, @Nullable Duration waitTime,
            @Nullable String method) {
        super(message, lockNames, waitTime, method, null);
    }
}
