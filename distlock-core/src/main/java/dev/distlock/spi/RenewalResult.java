package dev.distlock.spi;

/**
 * The outcome of renewing one watchdog lease. {@link #tag()} is the value of the {@code result} metric tag.
 */
public enum RenewalResult {

    /** The lease was extended. */
    RENEWED("renewed"),

    /** The lock was gone or owned by someone else: the lease is lost. */
    LOST("lost"),

    /** The store could not be reached or answered an error; renewal is retried until the lease deadline. */
    ERROR("error");

    private final String tag;

    RenewalResult(String tag) {
        this.tag = tag;
    }

    /** @return the metric tag value */
    public String tag() {
        return tag;
    }
}
