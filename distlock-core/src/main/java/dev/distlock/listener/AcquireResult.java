package dev.distlock.listener;

/**
 * How an acquisition attempt ended. {@link #tag()} is the value of the {@code result} metric tag.
 */
public enum AcquireResult {

    /** The lock was acquired. */
    ACQUIRED("acquired"),

    /** The wait time elapsed. */
    TIMEOUT("timeout"),

    /** The store could not be reached or answered an error. */
    ERROR("error");

    private final String tag;

    AcquireResult(String tag) {
        this.tag = tag;
    }

    /** @return the metric tag value */
    public String tag() {
        return tag;
    }
}
