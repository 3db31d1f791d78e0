package dev.distlock.spi;

/**
 * How a release in the store ended. {@link #tag()} is the value of the {@code result} metric tag.
 */
public enum ReleaseResult {

    /** The store confirmed the release by its owner. */
    RELEASED("released"),

    /** The lease had already expired (or the lock was taken over) before the release. */
    EXPIRED("expired"),

    /** The store could not confirm the release; the lease will expire on its own. */
    ERROR("error");

    private final String tag;

    ReleaseResult(String tag) {
        this.tag = tag;
    }

    /** @return the metric tag value */
    public String tag() {
        return tag;
    }
}
