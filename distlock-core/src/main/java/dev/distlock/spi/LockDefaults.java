package dev.distlock.spi;

/**
 * The default of every {@code distlock.*} setting, in one place: the configuration properties, the engine's and
 * the stores' configuration records all read them from here.
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

    /** {@code distlock.replication.min-replicas}. */
    public static final String MIN_REPLICAS = "auto";

    /** {@code distlock.replication.timeout}. */
    public static final String REPLICATION_TIMEOUT = "1s";

    /** {@code distlock.jdbc.table-name}. */
    public static final String JDBC_TABLE_NAME = "distlock_lock";

    /** {@code distlock.zookeeper.connect-string}. */
    public static final String ZOOKEEPER_CONNECT_STRING = "localhost:2181";

    /** {@code distlock.zookeeper.base-path}. */
    public static final String ZOOKEEPER_BASE_PATH = "/distlock";

    /** {@code distlock.zookeeper.session-timeout}. */
    public static final String ZOOKEEPER_SESSION_TIMEOUT = "30s";

    private LockDefaults() {
    }
}
