package dev.distlock.annotation;

import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * A {@link DistributedLock @DistributedLock} that cannot work as written: a key that does not parse or refers to
 * something the method does not have, a duration that is not one, a {@code holdAtLeast} longer than a fixed lease,
 * permits with {@code READ}/{@code WRITE}, an unsupported method. Thrown at start-up by the check of every annotated
 * bean method (the only place that reports it), and turned into Spring Boot's "APPLICATION FAILED TO START" report
 * (Description / Action) by {@link DistributedLockFailureAnalyzer}.
 */
public class InvalidLockAnnotationException extends IllegalStateException {

    private static final long serialVersionUID = 1L;

    private final String method;

    private final String attribute;

    private final String problem;

    private final String action;

    /**
     * @param method the annotated method, {@code fully.qualified.Class.method}
     * @param attribute the attribute at fault ({@code key}, {@code waitTime}...), or {@code method} /
     *        {@code return type} when the method itself cannot be locked
     * @param problem what is wrong, naming the expression or value
     * @param action what to do about it
     * @param cause the underlying failure, or {@code null}
     */
    public InvalidLockAnnotationException(String method, String attribute, String problem, String action,
            @Nullable Throwable cause) {
        super("Invalid @DistributedLock on " + method + ": " + attribute + " " + problem, cause);
        this.method = Objects.requireNonNull(method, "method");
        this.attribute = Objects.requireNonNull(attribute, "attribute");
        this.problem = Objects.requireNonNull(problem, "problem");
        this.action = Objects.requireNonNull(action, "action");
    }

    /** @return the annotated method, {@code fully.qualified.Class.method} */
    public String method() {
        return method;
    }

    /** @return the attribute at fault */
    public String attribute() {
        return attribute;
    }

    /** @return what is wrong */
    public String problem() {
        return problem;
    }

    /** @return what to do about it */
    public String action() {
        return action;
    }
}
