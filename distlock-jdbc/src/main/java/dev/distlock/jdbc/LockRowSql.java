package dev.distlock.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;

/**
 * The statements of the row template on a lock's row, for one table and database: built from the template's
 * {@link RowRules}, with the one acquire statement from the {@link RowDialect}.
 * <p>
 * The table (see {@code schema-*.sql}): {@code lock_name} (primary key), {@code owner_token} (the holder's owner
 * token, {@code NULL} when free), {@code fencing_token} (the last token issued, kept after release) and
 * {@code lease_until} (end of the holder's lease, on the database clock; the time of the release once released) and
 * {@code holder} (the holder's identity, {@link dev.distlock.spi.LockRequest#holder()}; left as it was on release).
 * A name used with permits has more than one row ({@link PermitRows}, statements in {@link PermitRowSql}).
 * <p>
 * Rows do not stay forever: {@link #deleteExpired()} removes those whose lease ended longer ago than the row
 * retention, so the table holds the names locked recently, not every name ever locked.
 */
final class LockRowSql {

    private final RowDialect dialect;

    private final String acquire;

    private final String release;

    private final String renew;

    private final String forceRelease;

    private final String deleteExpired;

    private final String liveOwner;

    private final String health;

    /**
     * @param table the validated table name ({@link JdbcLockConfig})
     * @param dialect the database
     */
    LockRowSql(String table, RowDialect dialect) {
        RowRules rules = new RowRules(dialect);
        this.dialect = dialect;
        this.acquire = dialect.acquire(table, rules);
        // The fencing floor: the row keeps the released lease's token when that is higher than its own. The engine
        // may have passed the lease on locally with higher tokens, and a quorum of databases hands out the highest
        // token of a majority, whose next majority shares a node with this one (the database clock alone does not
        // ensure it: CURRENT_TIMESTAMP is read when a statement starts, and an acquire may wait for the row lock of a
        // release).
        this.release = "UPDATE " + table + " SET " + rules.freed() + ", fencing_token = GREATEST(fencing_token, ?)"
                + " WHERE lock_name = ? AND owner_token = ? AND " + rules.live("");
        this.forceRelease = rules.forcedRelease(table, "lock_name = ?");
        this.renew = rules.renewal(table, "lock_name = ?");
        this.deleteExpired = dialect.deleteExpired(table, rules.sweepable());
        this.liveOwner = "SELECT owner_token FROM " + table + " WHERE lock_name = ? AND " + rules.live("");
        this.health = "SELECT COUNT(*) FROM " + table + " WHERE lock_name = ''";
    }

    /** @return the database's dialect */
    RowDialect dialect() {
        return dialect;
    }

    /**
     * A refused caller asks {@link #liveOwner()} whether the name is held with permits: one more statement on a busy
     * answer only, where the uncontended acquire stays one statement.
     *
     * @return the acquire query ({@link RowDialect#acquire}): parameters set by {@link #bindAcquire}; one row with
     *         the token when granted (new row, free row, expired row, or a repeat by the same owner, which keeps its
     *         token), none when busy
     */
    String acquire() {
        return acquire;
    }

    /**
     * @param statement a statement of {@link #acquire()}
     * @param name the lock name
     * @param ownerToken the request's owner token
     * @param leaseMillis the lease
     * @param holder the request's holder identity, kept in the row's {@code holder}
     * @throws SQLException when the driver refuses a value
     */
    void bindAcquire(PreparedStatement statement, String name, String ownerToken, long leaseMillis, String holder)
            throws SQLException {
        statement.setString(1, name);
        statement.setString(2, ownerToken);
        statement.setLong(3, leaseMillis);
        statement.setString(4, holder);
    }

    /**
     * @return the release update: parameters the released lease's fencing token (the floor of the next token; 0 for
     *         an undo), name, owner; 1 row when released within the lease
     */
    String release() {
        return release;
    }

    /** @return the force release update: parameter the name; 1 row when somebody held the lock */
    String forceRelease() {
        return forceRelease;
    }

    /** @return the renewal update: parameters lease ms, name, owner; 1 row when renewed */
    String renew() {
        return renew;
    }

    /**
     * @return the delete of rows free for longer than the retention, at most a batch of them; parameters set by
     *         {@link #bindDeleteExpired}
     */
    String deleteExpired() {
        return deleteExpired;
    }

    /**
     * @param statement a statement of {@link #deleteExpired()}
     * @param retentionMillis the row retention
     * @param batch the most rows to delete
     * @throws SQLException when the driver refuses a value
     */
    void bindDeleteExpired(PreparedStatement statement, long retentionMillis, int batch) throws SQLException {
        // RowRules.sweepable() reads the retention back from now: negated.
        statement.setLong(1, -retentionMillis);
        statement.setLong(2, -retentionMillis);
        statement.setInt(3, batch);
        if (dialect.repeatsSweepCondition()) {
            statement.setLong(4, -retentionMillis);
            statement.setLong(5, -retentionMillis);
        }
    }

    /** @return the query of the owner token of a live lease: parameter the name; no row when nobody holds it */
    String liveOwner() {
        return liveOwner;
    }

    /** @return a cheap query that fails when the table is missing */
    String health() {
        return health;
    }
}
