package dev.distlock.jdbc;

import java.time.Duration;
import java.util.regex.Pattern;

import dev.distlock.InvalidPropertyException;
import dev.distlock.core.LockDefaults;
import org.jspecify.annotations.Nullable;

/**
 * Settings of the {@link JdbcLockStore}, validated in the constructor; messages name the {@code distlock.*}
 * property each setting is bound from, so a bad value fails start-up with the property at fault.
 *
 * @param tableName the lock table ({@code distlock.jdbc.table-name}): a plain SQL identifier, optionally qualified
 *        by a schema ({@code locks.distlock_lock}). It is written into the SQL, never quoted, so it is checked here
 *        and nothing else can reach a statement
 * @param commandTimeout the query timeout of each lock statement, rounded up to whole seconds
 *        ({@code distlock.command-timeout}, with which the engine also bounds how long a caller waits for the
 *        store's answer, getting a connection included)
 * @param rowRetention how long the row of a name stays after its last lease ended (released or expired) before the
 *        store deletes it. It must be longer than any lock statement can run (the JDBC query timeout: the command
 *        timeout rounded up to whole seconds), because a name's next token after a deletion comes from the database
 *        clock and must be above the deleted row's last one ({@link #defaultRowRetention(Duration) default}: ten
 *        times that, at least one minute)
 */
public record JdbcLockConfig(String tableName, Duration commandTimeout, Duration rowRetention) {

    /** Letters, digits and underscores, not starting with a digit; 63 characters at most (PostgreSQL's limit). */
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    /** The least default retention of a free row (before {@link #DEFAULTS}, which uses it). */
    private static final Duration MIN_DEFAULT_ROW_RETENTION = Duration.ofMinutes(1);

    /** The default of {@code distlock.jdbc.table-name}. */
    public static final String DEFAULT_TABLE_NAME = "distlock_lock";

    private static final JdbcLockConfig DEFAULTS = new JdbcLockConfig(DEFAULT_TABLE_NAME,
            LockDefaults.COMMAND_TIMEOUT);

    /**
     * Settings with the {@link #defaultRowRetention(Duration) default row retention}.
     *
     * @param tableName the lock table
     * @param commandTimeout the database call bound
     */
    public JdbcLockConfig(String tableName, Duration commandTimeout) {
        this(tableName, commandTimeout, defaultRowRetention(commandTimeout));
    }

    /**
     * Validates the settings.
     */
    public JdbcLockConfig {
        if (tableName == null || !isQualifiedIdentifier(tableName)) {
            throw new InvalidPropertyException("distlock.jdbc.table-name", "must be an SQL identifier (letters, digits "
                    + "and underscores, not starting with a digit, at most 63 characters), optionally qualified by "
                    + "a schema as schema.table: '" + tableName + "'");
        }
        if (commandTimeout == null || commandTimeout.toMillis() < 1) {
            throw new InvalidPropertyException("distlock.command-timeout", "must be at least 1ms: " + commandTimeout);
        }
        if (rowRetention == null || rowRetention.compareTo(longestStatement(commandTimeout)) <= 0) {
            throw new IllegalArgumentException("JdbcLockConfig.rowRetention must be longer than the longest lock "
                    + "statement, distlock.command-timeout rounded up to whole seconds ("
                    + longestStatement(commandTimeout).toSeconds() + "s): " + rowRetention);
        }
    }

    /**
     * @param commandTimeout the database call bound
     * @return how long the row of a free name stays by default: ten times the longest lock statement, at least a
     *         minute (a name locked again within it keeps its row; a million names locked once leave no rows)
     */
    public static Duration defaultRowRetention(@Nullable Duration commandTimeout) {
        Duration tenStatements = longestStatement(commandTimeout).multipliedBy(10);
        return tenStatements.compareTo(MIN_DEFAULT_ROW_RETENTION) > 0 ? tenStatements : MIN_DEFAULT_ROW_RETENTION;
    }

    /** The JDBC query timeout of a lock statement is the call's bound in whole seconds, rounded up. */
    private static Duration longestStatement(@Nullable Duration commandTimeout) {
        long millis = commandTimeout == null ? 0 : commandTimeout.toMillis(); // null fails validation anyway
        return Duration.ofSeconds(Math.max(1, (millis + 999) / 1000));
    }

    private static boolean isQualifiedIdentifier(String name) {
        String[] parts = name.split("\\.", -1);
        if (parts.length > 2) {
            return false;
        }
        for (String part : parts) {
            if (!IDENTIFIER.matcher(part).matches()) {
                return false;
            }
        }
        return true;
    }

    /** @return the documented defaults */
    public static JdbcLockConfig defaults() {
        return DEFAULTS;
    }

    /** @param tableName the lock table @return a copy with it */
    public JdbcLockConfig withTableName(String tableName) {
        return new JdbcLockConfig(tableName, commandTimeout, rowRetention);
    }

    /**
     * @param commandTimeout the database call bound
     * @return a copy with it; the row retention becomes the default for it unless one was set explicitly
     */
    public JdbcLockConfig withCommandTimeout(Duration commandTimeout) {
        Duration retention = rowRetention.equals(defaultRowRetention(this.commandTimeout))
                ? defaultRowRetention(commandTimeout) : rowRetention;
        return new JdbcLockConfig(tableName, commandTimeout, retention);
    }

    /** @param rowRetention how long a free row stays @return a copy with it */
    public JdbcLockConfig withRowRetention(Duration rowRetention) {
        return new JdbcLockConfig(tableName, commandTimeout, rowRetention);
    }
}
