package dev.distlock.jdbc;

import java.time.Duration;
import java.util.regex.Pattern;

import dev.distlock.spi.LockDefaults;

import org.springframework.boot.convert.DurationStyle;

/**
 * Settings of the {@link JdbcLockStore}, validated in the constructor; messages name the {@code distlock.*}
 * property each setting is bound from, so a bad value fails start-up with the property at fault.
 *
 * @param tableName the lock table ({@code distlock.jdbc.table-name}): a plain SQL identifier, optionally qualified
 *        by a schema ({@code locks.distlock_lock}). It is written into the SQL, never quoted, so it is checked here
 *        and nothing else can reach a statement
 * @param commandTimeout bound on each database call of the lock path, getting a connection included
 *        ({@code distlock.command-timeout})
 */
public record JdbcLockConfig(String tableName, Duration commandTimeout) {

    /** Letters, digits and underscores, not starting with a digit; 63 characters at most (PostgreSQL's limit). */
    private static final Pattern IDENTIFIER = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,62}");

    private static final JdbcLockConfig DEFAULTS = new JdbcLockConfig(LockDefaults.JDBC_TABLE_NAME,
            DurationStyle.detectAndParse(LockDefaults.COMMAND_TIMEOUT));

    /**
     * Validates the settings.
     */
    public JdbcLockConfig {
        if (tableName == null || !isQualifiedIdentifier(tableName)) {
            throw new IllegalArgumentException("distlock.jdbc.table-name must be an SQL identifier (letters, digits "
                    + "and underscores, not starting with a digit, at most 63 characters), optionally qualified by "
                    + "a schema as schema.table: '" + tableName + "'");
        }
        if (commandTimeout == null || commandTimeout.toMillis() < 1) {
            throw new IllegalArgumentException("distlock.command-timeout must be at least 1ms: " + commandTimeout);
        }
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
        return new JdbcLockConfig(tableName, commandTimeout);
    }

    /** @param commandTimeout the database call bound @return a copy with it */
    public JdbcLockConfig withCommandTimeout(Duration commandTimeout) {
        return new JdbcLockConfig(tableName, commandTimeout);
    }
}
