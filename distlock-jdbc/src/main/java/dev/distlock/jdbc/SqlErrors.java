package dev.distlock.jdbc;

import java.sql.SQLException;

/**
 * What to tell about an {@link SQLException} of the lock path: a missing table says how to create it; any other
 * failure stays as it is (the caller maps it to {@link dev.distlock.LockUnavailableException}). Which codes mean
 * what is the {@link RowDialect}'s.
 */
final class SqlErrors {

    private SqlErrors() {
    }

    /**
     * @param ex a failure
     * @param table the lock table
     * @param dialect the database's dialect
     * @return the same exception, or one that says how to create the table when it is missing
     */
    static SQLException explain(SQLException ex, String table, RowDialect dialect) {
        if (dialect.isMissingTable(ex)) {
            return new SQLException("The lock table '" + table + "' does not exist: create it with "
                    + "distlock.jdbc.initialize-schema=always or from dev/distlock/jdbc/schema-<database>.sql in "
                    + "distlock-jdbc (" + ex.getMessage() + ")", ex.getSQLState(), ex.getErrorCode(), ex);
        }
        return ex;
    }
}
