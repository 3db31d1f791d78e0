package dev.distlock.jdbc;

import java.sql.SQLException;

/**
 * What an {@link SQLException} of the lock path means: contention (answer busy), a missing table (say how to
 * create it), or the database failing (the caller maps it to {@link dev.distlock.LockUnavailableException}).
 */
final class SqlErrors {

    private SqlErrors() {
    }

    /**
     * @param ex a failure of an acquire
     * @return true when another caller won a race for the same row: a duplicate key of two inserts of a new name
     *         (23505), a serialization failure or deadlock victim (class 40), a row lock not granted in time
     *         (PostgreSQL 55P03, H2 error 50200), or H2 finding the row changed under it (90131)
     */
    static boolean isContention(SQLException ex) {
        String state = ex.getSQLState();
        return "23505".equals(state) || (state != null && state.startsWith("40")) || "55P03".equals(state)
                || ex.getErrorCode() == 50200 || ex.getErrorCode() == 90131;
    }

    /**
     * @param ex a failure
     * @param table the lock table
     * @return the same exception, or one that says how to create the table when it is missing (PostgreSQL 42P01,
     *         H2 42102/42S02)
     */
    static SQLException explain(SQLException ex, String table) {
        String state = ex.getSQLState();
        if ("42P01".equals(state) || "42S02".equals(state) || ex.getErrorCode() == 42102 || ex.getErrorCode() == 42104) {
            return new SQLException("The lock table '" + table + "' does not exist: create it with "
                    + "distlock.jdbc.initialize-schema=always or from dev/distlock/jdbc/schema-<database>.sql in "
                    + "distlock-jdbc (" + ex.getMessage() + ")", state, ex.getErrorCode(), ex);
        }
        return ex;
    }
}
