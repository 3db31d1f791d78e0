package dev.distlock.jdbc;

/**
 * The rules of the row template, each written once as an SQL fragment in the words of one {@link RowDialect}: when a
 * row may be taken, which fencing token comes next, when a lease runs, and which rows a sweep may delete. The
 * statements ({@link LockRowSql}, {@link PermitRowSql}) and the dialects' acquires are built from these, so that
 * every database follows the same rules.
 * <p>
 * Every time is the database's clock: no statement takes a time from the JVM, so the clocks of the application nodes
 * never matter. Leases are durations (milliseconds) turned into an end time by the database.
 * <p>
 * A {@code row} argument is the prefix of the columns of the row as stored ({@code "t."} for an alias, {@code ""}
 * for the table itself), an {@code owner} argument the expression of the requesting owner token.
 */
final class RowRules {

    private final RowDialect dialect;

    /** @param dialect the database's words */
    RowRules(RowDialect dialect) {
        this.dialect = dialect;
    }

    /** @return the dialect the rules are written in */
    RowDialect dialect() {
        return dialect;
    }

    /** @return the database clock now */
    String now() {
        return dialect.now();
    }

    /**
     * The token of a name's first row: at least the database clock in microseconds, so that tokens keep increasing
     * even when a row is deleted (swept) or the database is restored from an older backup, as long as the database
     * clock does not go back by more than the time between two holders. The Redis store issues tokens the same way.
     *
     * @return the first token of a row
     */
    String firstToken() {
        return dialect.clockMicros();
    }

    /** @return the database clock in microseconds, for a transaction that computes the next token itself */
    String clockMicros() {
        return dialect.clockMicros();
    }

    /** @return the end of a lease of {@code ?} milliseconds from now (one parameter) */
    String leaseEnd() {
        return dialect.plusMillis(dialect.now());
    }

    /**
     * @param row the prefix of the stored row's columns
     * @return whether the row's lease runs: only such a lease may be renewed or released (as in Redis, where an
     *         expired key is gone, the caller learns that its lease ran out)
     */
    String live(String row) {
        return row + "lease_until > " + dialect.now();
    }

    /**
     * An expired row is not cleaned up when its lease ends: it keeps its owner until someone takes it, and counts as
     * free.
     *
     * @param row the prefix of the stored row's columns
     * @return whether nobody holds the row: released, or its lease ended
     */
    String free(String row) {
        return "(" + row + "owner_token IS NULL OR " + row + "lease_until <= " + dialect.now() + ")";
    }

    /**
     * @param row the prefix of the stored row's columns
     * @param owner the requesting owner token
     * @return whether the request may take the row: free, or already its own (a repeated attempt whose answer was
     *         lost)
     */
    String takeable(String row, String owner) {
        return "(" + row + "owner_token IS NULL OR " + row + "owner_token = " + owner + " OR " + row
                + "lease_until <= " + dialect.now() + ")";
    }

    /**
     * @param row the prefix of the stored row's columns
     * @param owner the requesting owner token
     * @return the token of a request that takes the row: its own again when it already holds it (an attempt is
     *         idempotent), else above the row's last token and at least the clock (so above a swept row's)
     */
    String nextToken(String row, String owner) {
        return "CASE WHEN " + row + "owner_token = " + owner + " THEN " + row + "fencing_token ELSE GREATEST("
                + row + "fencing_token + 1, " + dialect.clockMicros() + ") END";
    }

    /**
     * Which rows may go, the parameters being the row retention in milliseconds, negated, twice. Not a held row: its
     * lease has not ended. Not a row a statement still in flight may take over: the lease ended longer ago than any
     * lock statement runs (the retention is longer than the query timeout). And never a row whose token the name's
     * next one would not exceed: that next token is at least the database clock in microseconds when a statement
     * inserting the name again began — no earlier than the retention before now — so the last token must be below
     * the clock of then (a row whose token ran ahead of the clock, as after the clock went back, stays until the
     * clock has passed it).
     *
     * @return the condition of a row the sweep may delete
     */
    String sweepable() {
        return "lease_until < " + dialect.plusMillis(dialect.now()) + " AND fencing_token < " + dialect.clockMicros()
                + " + " + dialect.integer("?") + " * 1000";
    }

    /**
     * The lease ends at the release, so the row retention counts from it; the row keeps its token.
     *
     * @return the assignments (after {@code SET}) that free a row
     */
    String freed() {
        return "owner_token = NULL, lease_until = " + dialect.now();
    }

    /**
     * The renewal of a lock's row and of a permit's slot row alike: only the owner's, only within its lease.
     *
     * @param table the lock table
     * @param key the condition that finds the row (its parameters come after the lease)
     * @return the update: parameters lease ms, the key's, owner; 1 row when renewed
     */
    String renewal(String table, String key) {
        return "UPDATE " + table + " SET lease_until = " + leaseEnd() + " WHERE " + key + " AND owner_token = ? AND "
                + live("");
    }

    /**
     * An operator's release of a lock's row or a name's slot rows alike: the owner unchecked, the rows' tokens kept,
     * so the next token is above them.
     *
     * @param table the lock table
     * @param key the condition that finds the rows
     * @return the update: parameters the key's; the rows freed
     */
    String forcedRelease(String table, String key) {
        return "UPDATE " + table + " SET " + freed() + " WHERE " + key + " AND owner_token IS NOT NULL AND "
                + live("");
    }
}
