package dev.distlock;

import java.util.Objects;

/**
 * A {@code distlock.*} setting that cannot work: a negative wait, a lease too short to renew, a blank key prefix, a
 * malformed Redlock URI... Thrown while the settings are bound or the store is configured, so that start-up fails;
 * the auto-configuration's failure analyzer reports it as Spring Boot's Description / Action block naming the
 * property.
 */
public class InvalidPropertyException extends IllegalArgumentException {

    private static final long serialVersionUID = 1L;

    private final String property;

    private final String problem;

    /**
     * @param property the property at fault, for example {@code distlock.lease-time} or
     *        {@code distlock.redlock.nodes[1]}
     * @param problem what is wrong with its value, for example {@code must be at least 3 ms: 0 ms}; never a secret
     *        (a URI's password)
     */
    public InvalidPropertyException(String property, String problem) {
        super(property + " " + problem);
        this.property = Objects.requireNonNull(property, "property");
        this.problem = Objects.requireNonNull(problem, "problem");
    }

    /** @return the property at fault */
    public String property() {
        return property;
    }

    /** @return what is wrong with its value */
    public String problem() {
        return problem;
    }
}
