package dev.distlock.metrics;

/**
 * The bounded-cardinality {@code lock} tag of every distlock meter.
 * <p>
 * A lock name is {@code group + ":" + key} (the annotation's {@code name} and its evaluated {@code key}), or just
 * {@code group}. Keys are unbounded (product ids, user ids...), so tags carry only the group: the part of the name
 * before the first {@code ':'}. One meter per group and result keeps a monitoring system's series count bounded
 * by the number of lock groups in the code, not by the data.
 */
public final class LockTags {

    /** The name of the tag that carries the lock group. */
    public static final String LOCK = "lock";

    /** The name of the tag that carries the outcome. */
    public static final String RESULT = "result";

    /** Tag value used when the engine reports no name (it should not happen). */
    static final String UNKNOWN = "unknown";

    private LockTags() {
    }

    /**
     * The lock group of a lock name: everything before the first {@code ':'}, or the whole name when it has none.
     *
     * @param lockName the full lock name as passed to the engine
     * @return the value of the {@code lock} tag, never containing the key
     */
    public static String lockGroup(String lockName) {
        if (lockName == null || lockName.isEmpty()) {
            return UNKNOWN;
        }
        int colon = lockName.indexOf(':');
        if (colon == 0) {
            // A name such as ":42" has no group at all; never fall back to the key.
            return UNKNOWN;
        }
        return (colon < 0) ? lockName : lockName.substring(0, colon);
    }
}
