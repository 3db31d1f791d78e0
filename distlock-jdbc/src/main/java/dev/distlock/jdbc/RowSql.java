package dev.distlock.jdbc;

/**
 * All statements of the row template for one table and database, made once the first connection told which database
 * it is ({@link JdbcStatements}).
 *
 * @param dialect the database's dialect
 * @param locks the statements on a lock's row
 * @param permits the statements on the rows of a name used with permits
 */
record RowSql(RowDialect dialect, LockRowSql locks, PermitRowSql permits) {

    /**
     * @param table the validated table name ({@link JdbcLockConfig})
     * @param dialect the database
     * @return the statements
     */
    static RowSql of(String table, RowDialect dialect) {
        return new RowSql(dialect, new LockRowSql(table, dialect), new PermitRowSql(table, dialect));
    }
}
