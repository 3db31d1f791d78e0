package dev.distlock.core;

/**
 * The defaults of the engine's {@code distlock.*} settings, read by {@link LockConfig}, by the configuration
 * properties and, for the settings every store shares ({@code distlock.key-prefix}, {@code distlock.command-timeout}),
 * by the stores' configuration records. Each store's own settings have their defaults in its configuration record.
 */
public final class LockDefaults {

    /** {@code distlock.key-prefix}. */
    public static final String KEY_PREFIX = "distlock";

    /** {@code distlock.wait-time}. */
    public static final String WAIT_TIME = "3s";

    /** {@code distlock.lease-time}. */
    public static final String LEASE_TIME = "30s";

    /** {@code distlock.on-lease-lost}. */
    public static final String ON_LEASE_LOST = "log";

    /** {@code distlock.local-hand-off.max-count}. */
    public static final String LOCAL_HAND_OFF_MAX_COUNT = "100";

    /** {@code distlock.local-hand-off.max-time}. */
    public static final String LOCAL_HAND_OFF_MAX_TIME = "5ms";

    /** {@code distlock.command-timeout}. */
    public static final String COMMAND_TIMEOUT = "2s";

    private LockDefaults() {
    }
}
