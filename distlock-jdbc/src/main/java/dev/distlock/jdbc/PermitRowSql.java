package dev.distlock.jdbc;

/**
 * The statements of the row template on a name used with permits ({@link PermitRows}), for one table and database,
 * built from the template's {@link RowRules}. A grant is one short transaction ({@link PermitTransactions}) that
 * first locks the name row ({@link #lockNameRow()}), so grants of one name follow each other, then reads the slot
 * rows, takes a free or expired one and the next token from the name row (under its lock: two grants in the same
 * microsecond of the database clock still get two tokens). Releases and renewals find the holder's slot row among
 * the name's with {@link RowDialect#keyIn()} (one parameter for the slot keys: one statement per lease, as for a
 * lock); a renewal first extends the name row's lease ({@link #extendMarker()}). The row sweep needs nothing more:
 * a slot row is swept as a lock's row is, and a marked name row only after its lease, hence every holder's, ended
 * longer ago than the retention.
 */
final class PermitRowSql {

    private final String lockNameRow;

    private final String insertRow;

    private final String markNameRow;

    private final String takeNameRow;

    private final String freeNameRow;

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
    PermitRowSql(String table, RowDialect dialect) {
        RowRules rules = new RowRules(dialect);
        String leaseEnd = rules.leaseEnd();
        String keyIn = dialect.keyIn();
        // The name row locked first: every grant, conversion, forced release and renewal of a name with permits
        // locks it before any slot row, so they never wait for each other in a cycle. The clock comes with it, for
        // the next token.
        this.lockNameRow = "SELECT owner_token, fencing_token, " + rules.live("") + ", " + rules.clockMicros()
                + " FROM " + table + " WHERE lock_name = ? " + dialect.forUpdate();
        // A new name's row, and a slot row never used (or swept): token and lease are set by the caller.
        this.insertRow = "INSERT INTO " + table + " (lock_name, owner_token, fencing_token, lease_until, holder)"
                + " VALUES (?, ?, ?, " + leaseEnd + ", ?)";
        // The marker's lease only grows: it must outlast every holder's (a marked row whose lease ended is free).
        this.markNameRow = "UPDATE " + table + " SET owner_token = ?, fencing_token = ?,"
                + " lease_until = GREATEST(lease_until, " + leaseEnd + ") WHERE lock_name = ?";
        // A lock taking over a name whose permit holders are all gone: the lease is the lock's own.
        this.takeNameRow = "UPDATE " + table + " SET owner_token = ?, fencing_token = ?, lease_until = " + leaseEnd
                + ", holder = ? WHERE lock_name = ?";
        this.freeNameRow = "UPDATE " + table + " SET " + rules.freed() + " WHERE lock_name = ?";
        this.slots = "SELECT lock_name, owner_token, fencing_token, " + rules.live("") + " FROM " + table
                + " WHERE " + keyIn;
        // Re-checked on the row: a slot freed meanwhile is still free, one renewed meanwhile is not taken.
        this.takeSlot = "UPDATE " + table + " SET owner_token = ?, fencing_token = ?, lease_until = " + leaseEnd
                + ", holder = ? WHERE lock_name = ? AND " + rules.free("");
        // The slot row keeps its token: the name row counts the tokens, above every slot's.
        this.releasePermit = "UPDATE " + table + " SET " + rules.freed() + " WHERE " + keyIn
                + " AND owner_token = ? AND " + rules.live("");
        this.renewPermit = rules.renewal(table, keyIn);
        // Only while the name is still held with these permits: after a forced release, or a lock that took the
        // name over, nothing is extended and the renewal of the slot is not even tried.
        this.extendMarker = "UPDATE " + table + " SET lease_until = GREATEST(lease_until, " + leaseEnd + ")"
                + " WHERE lock_name = ? AND owner_token = ?";
        this.forceReleasePermits = rules.forcedRelease(table, keyIn);
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

    /**
     * @return the query of slot rows: parameter the slot keys; columns key, owner token, token, whether the lease
     *         is running
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

    /** @return the release of a permit: parameters the name's slot keys, owner; 1 row when released */
    String releasePermit() {
        return releasePermit;
    }

    /** @return the renewal of a permit: parameters lease ms, the name's slot keys, owner; 1 row when renewed */
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

    /** @return the forced release of permits: parameter the name's slot keys; the rows freed */
    String forceReleasePermits() {
        return forceReleasePermits;
    }
}
