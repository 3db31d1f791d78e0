package dev.distlock.jdbc;

import java.sql.SQLException;

/**
 * H2 2.x in any compatibility mode: the acquire is a {@code MERGE ... USING} inside a data change delta table
 * ({@code FINAL TABLE}), the slot keys an SQL array. See {@link RowDialect} for what a dialect supplies.
 */
record H2Dialect() implements RowDialect {

    /** H2 reports the same product name in every compatibility mode (PostgreSQL mode included). */
    @Override
    public boolean serves(String productName) {
        return productName.equalsIgnoreCase("h2");
    }

    /**
     * The parameters are read once, in the {@code USING} row, as the merge names them twice. Two callers inserting a
     * new name at once: one gets 23505 (contention).
     */
    @Override
    public String acquire(String table, RowRules rules) {
        String leaseEnd = rules.now() + " + s.l * INTERVAL '0.001' SECOND";
        return "SELECT fencing_token FROM FINAL TABLE (MERGE INTO " + table + " t"
                + " USING (VALUES (CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(64)), CAST(? AS BIGINT),"
                + " CAST(? AS VARCHAR(255)))) s(n, o, l, h)"
                + " ON t.lock_name = s.n"
                + " WHEN MATCHED AND " + rules.takeable("t.", "s.o") + " THEN UPDATE SET"
                + " fencing_token = " + rules.nextToken("t.", "s.o") + ","
                + " owner_token = s.o, lease_until = " + leaseEnd + ", holder = s.h"
                + " WHEN NOT MATCHED THEN INSERT (lock_name, owner_token, fencing_token, lease_until, holder)"
                + " VALUES (s.n, s.o, " + rules.firstToken() + ", " + leaseEnd + ", s.h))";
    }

    /** H2 re-checks the whole condition on a row that changed meanwhile: no repetition needed. */
    @Override
    public String deleteExpired(String table, String expired) {
        return "DELETE FROM " + table + " WHERE " + expired + " FETCH FIRST ? ROWS ONLY";
    }

    @Override
    public boolean repeatsSweepCondition() {
        return false;
    }

    /** A row lock not granted in time (50200), or the row changed under the statement (90131). */
    @Override
    public boolean isLockTimeout(SQLException ex) {
        return ex.getErrorCode() == 50200 || ex.getErrorCode() == 90131;
    }

    /** Table (42102, state 42S02) or, with a schema, the schema (42104) not found. */
    @Override
    public boolean isMissingTable(SQLException ex) {
        return "42S02".equals(ex.getSQLState()) || ex.getErrorCode() == 42102 || ex.getErrorCode() == 42104;
    }
}
