package dev.distlock.jdbc;

import java.sql.SQLException;
import java.util.Locale;

/**
 * PostgreSQL 9.5 or later: the acquire is {@code INSERT ... ON CONFLICT DO UPDATE ... RETURNING}, the slot keys an
 * SQL array. See {@link RowDialect} for what a dialect supplies.
 */
record PostgresDialect() implements RowDialect {

    @Override
    public boolean serves(String productName) {
        return productName.toLowerCase(Locale.ROOT).contains("postgresql");
    }

    /**
     * Atomic: the conflict clause locks the row, so two callers cannot both take it. One statement, so that the
     * uncontended acquire is one round trip (a {@code WITH} around it that also read the holder measured slower at
     * one thread in workload S, if within PostgreSQL's run-to-run swings).
     */
    @Override
    public String acquire(String table, RowRules rules) {
        return "INSERT INTO " + table + " AS t (lock_name, owner_token, fencing_token, lease_until, holder)"
                + " VALUES (?, ?, " + rules.firstToken() + ", " + rules.leaseEnd() + ", ?)"
                + " ON CONFLICT (lock_name) DO UPDATE SET"
                + " fencing_token = " + rules.nextToken("t.", "EXCLUDED.owner_token") + ","
                + " owner_token = EXCLUDED.owner_token, lease_until = EXCLUDED.lease_until, holder = EXCLUDED.holder"
                + " WHERE " + rules.takeable("t.", "EXCLUDED.owner_token")
                + " RETURNING t.fencing_token";
    }

    /**
     * The condition is repeated on the outer statement because PostgreSQL re-checks only that one on a row that
     * changed meanwhile ({@link #repeatsSweepCondition()}); {@code DELETE} has no {@code LIMIT} of its own.
     */
    @Override
    public String deleteExpired(String table, String expired) {
        return "DELETE FROM " + table + " WHERE lock_name IN (SELECT lock_name FROM " + table + " WHERE " + expired
                + " LIMIT ?) AND " + expired;
    }

    @Override
    public boolean repeatsSweepCondition() {
        return true;
    }

    /** A lock not granted in time (55P03). */
    @Override
    public boolean isLockTimeout(SQLException ex) {
        return "55P03".equals(ex.getSQLState());
    }

    /** Undefined table, 42P01. */
    @Override
    public boolean isMissingTable(SQLException ex) {
        return "42P01".equals(ex.getSQLState());
    }
}
