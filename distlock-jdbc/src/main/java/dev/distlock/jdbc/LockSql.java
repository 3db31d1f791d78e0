package dev.distlock.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Locale;

/**
 * The statements of the {@link JdbcLockStore} for one table and database. Every time in them is the database's
 * {@code CURRENT_TIMESTAMP}: no statement takes a time from the JVM, so the clocks of the application nodes never
 * matter, only the database's. Leases are durations (milliseconds) turned into an end time by the database.
 * <p>
 * Release and renewal are plain SQL that PostgreSQL and H2 share (and most databases accept, but for the interval
 * arithmetic). Only the acquire of a lock differs: it is one atomic statement that inserts the row of a new name or
 * takes over a free or expired row, and returns the new fencing token — {@code INSERT ... ON CONFLICT DO UPDATE ...
 * RETURNING} on PostgreSQL, {@code MERGE} inside {@code FINAL TABLE} on H2; a refused lock then asks
 * {@link #liveOwner()} whether the name is held with permits.
 * <p>
 * The table (see {@code schema-*.sql}): {@code lock_name} (primary key), {@code owner_token} (the holder's owner
 * token, {@code NULL} when free), {@code fencing_token} (the last token issued, kept after release) and
 * {@code lease_until} (end of the holder's lease, on the database clock; the time of the release once released).
 * A name used with permits has more than one row, see below.
 * <p>
 * Rows do not stay forever: {@link #deleteExpired()} removes those whose lease ended longer ago than the row
 * retention, so the table holds the names locked recently, not every name ever locked.
 * <p>
 * Permits use the same table and columns ({@link PermitRows}): the name's row, marked {@code #<permits>}, counts
 * the tokens and outlasts every holder's lease; a slot row per permit holds one holder as a lock's row does. Their
 * statements are plain SQL that both databases share: a grant is one short transaction that first locks the name
 * row ({@link #lockNameRow()}), so grants of one name follow each other, then reads the slot rows, takes a free or
 * expired one and the next token from the name row (under its lock: two grants in the same microsecond of the
 * database clock still get two tokens). Releases and renewals find the holder's slot row among the name's with
 * {@code lock_name = ANY(?)} (an array of the slot keys: one statement per lease, as for a lock, and the primary
 * key's index); a renewal first extends the name row's lease ({@link #extendMarker()}). The row sweep needs nothing
 * more: a slot row is swept as a lock's row is, and a marked name row is swept only after its lease, hence every
 * holder's, ended longer ago than the retention.
 */
final class LockSql {

    /** The databases whose acquire statement is known. */
    enum Dialect {
        /** PostgreSQL 9.5 or later (upsert). */
        POSTGRESQL,
        /** H2 2.x in any compatibility mode (MERGE ... USING and data change delta tables). */
        H2;

        /**
         * @param productName {@link java.sql.DatabaseMetaData#getDatabaseProductName()}
         * @return the dialect
         * @throws IllegalStateException for a database without one
         */
        static Dialect of(String productName) {
            String name = productName.toLowerCase(Locale.ROOT);
            if (name.contains("postgresql")) {
                return POSTGRESQL;
            }
            if (name.equals("h2")) {
                return H2;
            }
            throw new IllegalStateException("distlock-jdbc supports PostgreSQL and H2, not " + productName);
        }
    }

    /**
     * The next fencing token is at least the database clock in microseconds (and above the row's last token): so
     * tokens keep increasing even when a row is deleted or the database is restored from an older backup, as long as
     * the database clock does not go back by more than the time between two holders. The Redis store issues tokens
     * the same way.
     */
    private static final String CLOCK_MICROS = "CAST(EXTRACT(EPOCH FROM CURRENT_TIMESTAMP) * 1000000 AS BIGINT)";

    /** The end of a lease of {@code ?} milliseconds from now, on the database clock. */
    private static final String LEASE_END = "CURRENT_TIMESTAMP + CAST(? AS BIGINT) * INTERVAL '0.001' SECOND";

    private final String acquire;

    private final String release;

    private final String renew;

    private final String forceRelease;

    private final String deleteExpired;

    private final Dialect dialect;

    private final String health;

    private final String lockNameRow;

    private final String insertRow;

    private final String markNameRow;

    private final String takeNameRow;

    private final String freeNameRow;

    private final String liveOwner;

    private final String slots;

    private final String takeSlot;

    private final String releasePermit;

    private final String renewPermit;

    private final String extendMarker;

    private final String forceReleasePermits;

    /**
     * @param table the validated table name ({@link JdbcLockConfig})
     * @param dialect the database
     */
    LockSql(String table, Dialect dialect) {
        this.dialect = dialect;
        this.acquire = dialect == Dialect.POSTGRESQL ? postgresAcquire(table) : h2Acquire(table);
        // An expired lease is not released (its row keeps the owner until someone takes it, which needs no clean-up:
        // an expired row counts as free), so the caller learns that its lease ran out.
        // The lease ends at the release: the row retention counts from it. The row keeps the released lease's
        // token when that is higher than its own: a quorum of databases hands out the highest token of a majority,
        // and the next majority shares a node with this one, whose next token is then above every earlier one
        // (the database clock alone does not ensure it: CURRENT_TIMESTAMP is read when a statement starts, and an
        // acquire may wait for the row lock of a release). For a lease of this store alone it is the row's own.
        this.release = "UPDATE " + table + " SET owner_token = NULL, lease_until = CURRENT_TIMESTAMP,"
                + " fencing_token = GREATEST(fencing_token, ?)"
                + " WHERE lock_name = ? AND owner_token = ? AND lease_until > CURRENT_TIMESTAMP";
        // An operator's release: the owner unchecked, the row's token kept, so the next token is above it.
        this.forceRelease = "UPDATE " + table + " SET owner_token = NULL, lease_until = CURRENT_TIMESTAMP"
                + " WHERE lock_name = ? AND owner_token IS NOT NULL AND lease_until > CURRENT_TIMESTAMP";
        // Only a lease that has not ended may be renewed, as in Redis where an expired key is gone.
        this.renew = "UPDATE " + table + " SET lease_until = " + LEASE_END
                + " WHERE lock_name = ? AND owner_token = ? AND lease_until > CURRENT_TIMESTAMP";
        this.health = "SELECT COUNT(*) FROM " + table + " WHERE lock_name = ''";
        this.deleteExpired = dialect == Dialect.POSTGRESQL ? postgresDeleteExpired(table) : h2DeleteExpired(table);

        // Permits. The name row locked first: every grant, conversion, forced release and renewal of a name with
        // permits locks it before any slot row, so they never wait for each other in a cycle. The clock comes with
        // it, for the next token.
        this.lockNameRow = "SELECT owner_token, fencing_token, lease_until > CURRENT_TIMESTAMP, " + CLOCK_MICROS
                + " FROM " + table + " WHERE lock_name = ? FOR UPDATE";
        // A new name's row, and a slot row never used (or swept): token and lease are set by the caller.
        this.insertRow = "INSERT INTO " + table + " (lock_name, owner_token, fencing_token, lease_until)"
                + " VALUES (?, ?, ?, " + LEASE_END + ")";
        // The marker's lease only grows: it must outlast every holder's (a marked row whose lease ended is free).
        this.markNameRow = "UPDATE " + table + " SET owner_token = ?, fencing_token = ?,"
                + " lease_until = GREATEST(lease_until, " + LEASE_END + ") WHERE lock_name = ?";
        // A lock taking over a name whose permit holders are all gone: the lease is the lock's own.
        this.takeNameRow = "UPDATE " + table + " SET owner_token = ?, fencing_token = ?, lease_until = " + LEASE_END
                + " WHERE lock_name = ?";
        this.freeNameRow = "UPDATE " + table + " SET owner_token = NULL, lease_until = CURRENT_TIMESTAMP"
                + " WHERE lock_name = ?";
        this.liveOwner = "SELECT owner_token FROM " + table + " WHERE lock_name = ? AND lease_until > CURRENT_TIMESTAMP";
        this.slots = "SELECT lock_name, owner_token, fencing_token, lease_until > CURRENT_TIMESTAMP FROM " + table
                + " WHERE lock_name = ANY(?)";
        // Re-checked on the row: a slot freed meanwhile is still free, one renewed meanwhile is not taken.
        this.takeSlot = "UPDATE " + table + " SET owner_token = ?, fencing_token = ?, lease_until = " + LEASE_END
                + " WHERE lock_name = ? AND (owner_token IS NULL OR lease_until <= CURRENT_TIMESTAMP)";
        // The slot row keeps its token: the name row counts the tokens, above every slot's.
        this.releasePermit = "UPDATE " + table + " SET owner_token = NULL, lease_until = CURRENT_TIMESTAMP"
                + " WHERE lock_name = ANY(?) AND owner_token = ? AND lease_until > CURRENT_TIMESTAMP";
        this.renewPermit = "UPDATE " + table + " SET lease_until = " + LEASE_END
                + " WHERE lock_name = ANY(?) AND owner_token = ? AND lease_until > CURRENT_TIMESTAMP";
        // Only while the name is still held with these permits: after a forced release, or a lock that took the
        // name over, nothing is extended and the renewal of the slot is not even tried.
        this.extendMarker = "UPDATE " + table + " SET lease_until = GREATEST(lease_until, " + LEASE_END + ")"
                + " WHERE lock_name = ? AND owner_token = ?";
        this.forceReleasePermits = "UPDATE " + table + " SET owner_token = NULL, lease_until = CURRENT_TIMESTAMP"
                + " WHERE lock_name = ANY(?) AND owner_token IS NOT NULL AND lease_until > CURRENT_TIMESTAMP";
    }

    /**
     * Which rows may go, {@code ?} being the row retention in milliseconds (twice). Not a held row: its lease has
     * not ended. Not a row a statement still in flight may take over: the lease ended longer ago than any lock
     * statement runs (the retention is longer than the query timeout). And never a row whose token the name's next
     * one would not exceed: that next token is at least the database clock in microseconds when a statement
     * inserting the name again began — no earlier than the retention before now — so the last token must be
     * below the clock of then (a row whose token ran ahead of the clock, as after the clock went back, stays
     * until the clock has passed it).
     */
    private static String expired() {
        return "lease_until < CURRENT_TIMESTAMP - CAST(? AS BIGINT) * INTERVAL '0.001' SECOND"
                + " AND fencing_token < " + CLOCK_MICROS + " - CAST(? AS BIGINT) * 1000";
    }

    /**
     * Parameters: retention ms (twice), batch size, retention ms (twice). The condition is repeated on the outer
     * statement because PostgreSQL re-checks only that one on a row that changed meanwhile (a name acquired again
     * between the selection and the delete is then kept).
     */
    private static String postgresDeleteExpired(String table) {
        return "DELETE FROM " + table + " WHERE lock_name IN (SELECT lock_name FROM " + table + " WHERE "
                + expired() + " LIMIT ?) AND " + expired();
    }

    /**
     * Parameters: retention ms (twice), batch size. H2 re-checks the condition on a row that changed meanwhile.
     */
    private static String h2DeleteExpired(String table) {
        return "DELETE FROM " + table + " WHERE " + expired() + " FETCH FIRST ? ROWS ONLY";
    }

    /**
     * Parameters: lock name, owner token, lease in ms. One row with the fencing token when granted (new row, free
     * row, expired row, or a repeat by the same owner, which keeps its token), none when another owner holds a live
     * lease. Atomic: the conflict clause locks the row, so two callers cannot both take it. A refused caller asks
     * {@link #liveOwner()} whether the name is held with permits: one more statement on a busy answer only, where
     * the uncontended acquire stays this one statement, as before permits (a {@code WITH} around it that also read
     * the holder measured slower at one thread in workload S, if within PostgreSQL's run-to-run swings).
     */
    private static String postgresAcquire(String table) {
        return "INSERT INTO " + table + " AS t (lock_name, owner_token, fencing_token, lease_until)"
                + " VALUES (?, ?, " + CLOCK_MICROS + ", " + LEASE_END + ")"
                + " ON CONFLICT (lock_name) DO UPDATE SET"
                + " fencing_token = CASE WHEN t.owner_token = EXCLUDED.owner_token THEN t.fencing_token"
                + " ELSE GREATEST(t.fencing_token + 1, EXCLUDED.fencing_token) END,"
                + " owner_token = EXCLUDED.owner_token, lease_until = EXCLUDED.lease_until"
                + " WHERE t.owner_token IS NULL OR t.owner_token = EXCLUDED.owner_token"
                + " OR t.lease_until <= CURRENT_TIMESTAMP"
                + " RETURNING t.fencing_token";
    }

    /** The same as {@link #postgresAcquire} for H2. Two callers inserting a new name at once: one gets 23505. */
    private static String h2Acquire(String table) {
        String leaseEnd = "CURRENT_TIMESTAMP + s.l * INTERVAL '0.001' SECOND";
        return "SELECT fencing_token FROM FINAL TABLE (MERGE INTO " + table + " t"
                + " USING (VALUES (CAST(? AS VARCHAR(255)), CAST(? AS VARCHAR(64)), CAST(? AS BIGINT))) s(n, o, l)"
                + " ON t.lock_name = s.n"
                + " WHEN MATCHED AND (t.owner_token IS NULL OR t.owner_token = s.o"
                + " OR t.lease_until <= CURRENT_TIMESTAMP) THEN UPDATE SET"
                + " fencing_token = CASE WHEN t.owner_token = s.o THEN t.fencing_token"
                + " ELSE GREATEST(t.fencing_token + 1, " + CLOCK_MICROS + ") END,"
                + " owner_token = s.o, lease_until = " + leaseEnd
                + " WHEN NOT MATCHED THEN INSERT (lock_name, owner_token, fencing_token, lease_until)"
                + " VALUES (s.n, s.o, " + CLOCK_MICROS + ", " + leaseEnd + "))";
    }

    /**
     * @return the acquire query: parameters set by {@link #bindAcquire}; one row with the token when granted, none
     *         when busy (then {@link #liveOwner()} says who holds the name)
     */
    String acquire() {
        return acquire;
    }

    /**
     * @param statement a statement of {@link #acquire()}
     * @param name the lock name
     * @param ownerToken the request's owner token
     * @param leaseMillis the lease
     * @throws SQLException when the driver refuses a value
     */
    void bindAcquire(PreparedStatement statement, String name, String ownerToken, long leaseMillis)
            throws SQLException {
        statement.setString(1, name);
        statement.setString(2, ownerToken);
        statement.setLong(3, leaseMillis);
    }

    /**
     * @return the release update: parameters the released lease's fencing token (0 for an undo), name, owner; 1 row
     *         when released within the lease
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
        statement.setLong(1, retentionMillis);
        statement.setLong(2, retentionMillis);
        statement.setInt(3, batch);
        if (dialect == Dialect.POSTGRESQL) {
            statement.setLong(4, retentionMillis);
            statement.setLong(5, retentionMillis);
        }
    }

    /**
     * @return the query that locks a name row until the transaction ends: parameter the name; columns owner token,
     *         last token, whether the lease is running, the database clock in microseconds; no row for a new name
     */
    String lockNameRow() {
        return lockNameRow;
    }

    /** @return the insert of a row: parameters key, owner token, fencing token, lease ms */
    String insertRow() {
        return insertRow;
    }

    /**
     * @return the update that marks a name row for permits with a grant's token: parameters marker, token, lease ms
     *         (the row's lease becomes at least that long), name
     */
    String markNameRow() {
        return markNameRow;
    }

    /** @return the update by which a lock takes a name row: parameters owner token, token, lease ms, name */
    String takeNameRow() {
        return takeNameRow;
    }

    /** @return the update that frees a name row, keeping its token: parameter the name */
    String freeNameRow() {
        return freeNameRow;
    }

    /** @return the query of the owner token of a live lease: parameter the name; no row when nobody holds it */
    String liveOwner() {
        return liveOwner;
    }

    /**
     * @return the query of slot rows: parameter the array of their keys; columns key, owner token, token, whether
     *         the lease is running
     */
    String slots() {
        return slots;
    }

    /**
     * @return the update that takes a free or expired slot row: parameters owner token, token, lease ms, key; 1 row
     *         when taken
     */
    String takeSlot() {
        return takeSlot;
    }

    /** @return the release of a permit: parameters the array of the name's slot keys, owner; 1 row when released */
    String releasePermit() {
        return releasePermit;
    }

    /**
     * @return the renewal of a permit: parameters lease ms, the array of the name's slot keys, owner; 1 row when
     *         renewed
     */
    String renewPermit() {
        return renewPermit;
    }

    /**
     * @return the update that makes a name row's lease last at least as long as a renewed permit's: parameters
     *         lease ms, name, marker; 1 row while the name is held with those permits
     */
    String extendMarker() {
        return extendMarker;
    }

    /** @return the forced release of permits: parameter the array of the name's slot keys; the rows freed */
    String forceReleasePermits() {
        return forceReleasePermits;
    }

    /** @return a cheap query that fails when the table is missing */
    String health() {
        return health;
    }
}
