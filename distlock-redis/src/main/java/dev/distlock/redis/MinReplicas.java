package dev.distlock.redis;

import java.util.Locale;

import dev.distlock.InvalidPropertyException;

/**
 * {@code distlock.replication.min-replicas}: how many replicas must acknowledge a lock write ({@code WAIT}) before
 * an acquire returns, and a renewal counts.
 * <ul>
 * <li>{@link #AUTO} (the default): one whenever the master serving the lock has a replica online (a standalone
 * master, each Cluster master), none when it has none. The replicas are read from {@code INFO replication} once per
 * node and connection, then refreshed in the background, so a master without a replica costs no {@code WAIT} at all.
 * Behind Sentinel the master is not asked and always counts one replica ({@code LettuceNode}), so {@code auto} waits
 * for one there.</li>
 * <li>A number: exactly that many, whatever the master reports; {@code 0} turns acknowledgement off.</li>
 * </ul>
 *
 * @param auto whether the count follows the master's replicas
 * @param count the fixed count, when not {@code auto}
 */
public record MinReplicas(boolean auto, int count) {

    /** One replica whenever the master has one online (behind Sentinel: always), none otherwise. */
    public static final MinReplicas AUTO = new MinReplicas(true, 1);

    /** No acknowledgement. */
    public static final MinReplicas NONE = new MinReplicas(false, 0);

    /**
     * Validates the count.
     */
    public MinReplicas {
        if (count < 0) {
            throw new InvalidPropertyException("distlock.replication.min-replicas",
                    "must be 'auto' or a whole number >= 0: " + count);
        }
        if (auto && count != 1) {
            throw new InvalidPropertyException("distlock.replication.min-replicas", "'auto' waits for one replica");
        }
    }

    /**
     * @param count replicas that must acknowledge
     * @return a fixed count
     */
    public static MinReplicas of(int count) {
        return new MinReplicas(false, count);
    }

    /**
     * Parses the property value.
     *
     * @param value {@code auto} (any case) or a whole number &gt;= 0
     * @return the setting
     * @throws IllegalArgumentException naming the property, for any other value
     */
    public static MinReplicas parse(String value) {
        String trimmed = value == null ? "" : value.trim();
        if (trimmed.toLowerCase(Locale.ROOT).equals("auto")) {
            return AUTO;
        }
        try {
            return of(Integer.parseInt(trimmed));
        }
        catch (IllegalArgumentException ex) { // not a number, or negative
            throw new IllegalArgumentException(
                    "distlock.replication.min-replicas must be 'auto' or a whole number >= 0: '" + value + "'");
        }
    }

    /** @return true when no acknowledgement is ever awaited ({@code 0}) */
    public boolean isOff() {
        return !auto && count == 0;
    }

    /**
     * @param onlineReplicas replicas the master lists as online
     * @return how many must acknowledge a write on that master
     */
    public int required(int onlineReplicas) {
        return auto ? Math.min(count, onlineReplicas) : count;
    }

    /** @return {@code auto} or the number, as the property is written */
    @Override
    public String toString() {
        return auto ? "auto" : Integer.toString(count);
    }
}
