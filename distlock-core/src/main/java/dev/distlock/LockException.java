package dev.distlock;

import java.time.Duration;
import java.util.List;
import java.util.Optional;

import org.jspecify.annotations.Nullable;

/**
 * Base class of every exception distlock throws. Besides its message it carries, where known, the names of the
 * locks at fault, the wait that applied and the annotated method that asked for them, so that application code
 * (an exception handler, a retry policy) can act on them without parsing the message.
 */
public class LockException extends RuntimeException {

    private static final long serialVersionUID = 1L;

    private final List<String> lockNames;

    private final @Nullable Duration waitTime;

    private final @Nullable String method;

    /**
     * @param message what went wrong, naming the lock, method, expression or property at fault
     */
    public LockException(String message) {
        this(message, List.of(), null, null, null);
    }

    /**
     * @param message what went wrong
     * @param cause the underlying failure
     */
    public LockException(String message, Throwable cause) {
        this(message, List.of(), null, null, cause);
    }

    /**
     * @param message what went wrong, naming the lock, method, expression or property at fault
     * @param lockNames the locks at fault, in the order they were asked for; empty when none is known
     * @param waitTime the wait that applied, or {@code null} when unknown or not relevant
     * @param method the annotated method that asked for the locks ({@code SimpleClassName.methodName}), or
     *        {@code null} for a programmatic call
     * @param cause the underlying failure, or {@code null}
     */
    public LockException(String message, List<String> lockNames, @Nullable Duration waitTime, @Nullable String method,
            @Nullable Throwable cause) {
        super(message, cause);
        this.lockNames = List.copyOf(lockNames);
        this.waitTime = waitTime;
        this.method = method;
    }

    /** @return the names of the locks at fault, in the order they were asked for; empty when none is known */
    public List<String> lockNames() {
        return lockNames;
    }

    /** @return the wait that applied (the effective one: the annotation's, the options' or the default) */
    public Optional<Duration> waitTime() {
        return Optional.ofNullable(waitTime);
    }

    /**
     * @return the {@code @DistributedLock} method that asked for the locks, as {@code SimpleClassName.methodName}
     *         (for example {@code StockService.deduct}); empty for a programmatic call
     */
    public Optional<String> method() {
        return Optional.ofNullable(method);
    }

    /**
     * @param duration a duration
     * @return it in milliseconds, as every distlock message writes durations ({@code "3000 ms"})
     */
    public static String millis(Duration duration) {
        return duration.toMillis() + " ms";
    }
}
