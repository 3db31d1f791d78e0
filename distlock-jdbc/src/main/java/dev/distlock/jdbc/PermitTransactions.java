package dev.distlock.jdbc;

import java.sql.Array;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.Map;
import java.util.OptionalInt;

import dev.distlock.spi.LockMode;
import dev.distlock.spi.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * The work on a name used with permits that spans several rows ({@link PermitRows}), each one short transaction
 * that first locks the name's row: a grant of a permit, a lock taking over a name whose permit holders are all gone,
 * and a forced release (of a lock too, which must not free a row that a grant marks meanwhile). Locking the name row first makes the grants of one name follow each other across nodes, so
 * that counting the live slot rows and taking one is atomic, and the next token, read from the name row under its
 * lock, is above every earlier one even for two grants in the same microsecond of the database clock.
 * <p>
 * What the transaction does not see coming is harmless: a release only frees a slot row (one more grant may wait for
 * a later attempt), a renewal of a permit locks the name row itself first, and the row sweep deletes only slot rows
 * free for longer than the retention (a take that finds its row gone answers busy).
 */
final class PermitTransactions {

    /** Prepares a statement with the store's query timeout. */
    @FunctionalInterface
    interface Statements {

        /**
         * @param connection the connection
         * @param sql the statement
         * @return the prepared statement, bounded by the command timeout
         * @throws SQLException when the driver fails
         */
        PreparedStatement prepare(Connection connection, String sql) throws SQLException;
    }

    /** What an attempt found. */
    sealed interface Outcome {
    }

    /**
     * The request holds the name (or one of its permits) now.
     *
     * @param fencingToken the holder's token
     */
    record Granted(long fencingToken) implements Outcome {
    }

    /** Held by others as much as the request allows: try again later. */
    record Busy() implements Outcome {
    }

    /**
     * Held with another number of permits than the request's: an error for the caller.
     *
     * @param permits the holders' permits, 1 for a lock
     */
    record HeldWithOtherPermits(int permits) implements Outcome {
    }

    /** The one busy outcome. */
    static final Outcome BUSY = new Busy();

    /** The name row as locked: who holds it, its last token, and the database clock then. */
    private record NameRow(@Nullable String owner, long lastToken, boolean live, long clockMicros) {

        /** @return the next token: above the last, and at least the clock (so above a swept row's) */
        long nextToken() {
            return Math.max(lastToken + 1, clockMicros);
        }
    }

    /** One slot row as read. */
    private record Slot(@Nullable String owner, long fencingToken, boolean live) {
    }

    private final Statements statements;

    /** @param statements how statements are prepared */
    PermitTransactions(Statements statements) {
        this.statements = statements;
    }

    /**
     * A request's attempt on a name used with permits: a permit request on any name, or a lock request on a name
     * whose row is marked for permits (the lock's own statement never takes a marked row whose lease is running).
     *
     * @return granted, busy, or held with other permits (then nothing changed)
     */
    Outcome acquire(Connection connection, LockSql sql, LockRequest request) throws SQLException {
        return inTransaction(connection, () -> {
            NameRow row = lockNameRow(connection, sql, request.name());
            if (row == null) {
                if (!(request.mode() instanceof LockMode.Permits)) {
                    return BUSY; // the row went since the lock's statement saw it: that statement inserts it again
                }
                insertRow(connection, sql, request.name(), PermitRows.marker(request.permits()), 0, 0);
                row = lockNameRow(connection, sql, request.name());
                if (row == null) {
                    return BUSY;
                }
            }
            OptionalInt marked = PermitRows.permitsOf(row.owner());
            if (marked.isPresent()) {
                int permits = marked.getAsInt();
                if (permits != request.permits() && anyLive(readSlots(connection, sql, request.name(), permits))) {
                    return new HeldWithOtherPermits(permits);
                }
                // Every holder of the marker is gone (or the request's permits are the marker's): either kind
                // of request may use the name.
            }
            else if (!(request.mode() instanceof LockMode.Permits)) {
                return BUSY; // a lock's row again (freed, or taken meanwhile): the lock's statement decides
            }
            else if (row.owner() != null && row.live()) {
                return new HeldWithOtherPermits(1);
            }
            return request.mode() instanceof LockMode.Permits ? grantPermit(connection, sql, request, row)
                    : takeOver(connection, sql, request, row);
        });
    }

    /** A lock takes the name row of a name whose permit holders are all gone. */
    private Outcome takeOver(Connection connection, LockSql sql, LockRequest request, NameRow row)
            throws SQLException {
        long token = row.nextToken();
        try (PreparedStatement take = statements.prepare(connection, sql.takeNameRow())) {
            take.setString(1, request.ownerToken());
            take.setLong(2, token);
            take.setLong(3, request.leaseMillis());
            take.setString(4, request.name());
            take.executeUpdate();
        }
        return new Granted(token);
    }

    /** A permit: the request's own slot again, or a free or expired one while fewer than the permits are live. */
    private Outcome grantPermit(Connection connection, LockSql sql, LockRequest request, NameRow row)
            throws SQLException {
        String[] keys = PermitRows.slots(request.name(), request.permits());
        Map<String, Slot> slots = readSlots(connection, sql, request.name(), request.permits());
        String marker = PermitRows.marker(request.permits());
        int live = 0;
        for (String key : keys) {
            Slot slot = slots.get(key);
            if (slot != null && slot.live()) {
                if (request.ownerToken().equals(slot.owner())) {
                    // A repeated attempt of a holder (its answer was lost): the same token, the lease from now.
                    renewSlot(connection, sql, request, key);
                    markNameRow(connection, sql, request, marker, row.lastToken());
                    return new Granted(slot.fencingToken());
                }
                live++;
            }
        }
        if (live >= request.permits()) {
            return BUSY;
        }
        long token = row.nextToken();
        for (String key : keys) {
            Slot slot = slots.get(key);
            if (slot == null) {
                insertRow(connection, sql, key, request.ownerToken(), token, request.leaseMillis());
            }
            else if (slot.live() || !takeSlot(connection, sql, request, key, token)) {
                continue; // held, or renewed or swept since it was read: another one
            }
            markNameRow(connection, sql, request, marker, token);
            return new Granted(token);
        }
        return BUSY;
    }

    /**
     * An operator's release of whoever holds the name: its lock holder, or every holder of its permits. The name
     * row keeps its token (the next holder's is above it) and is free for either kind of request. In the
     * transaction that locks the name row, so that a grant of a permit cannot mark the row between the check and
     * the release (a lock's release of a marked row would free the name while its permits are held).
     *
     * @return true when somebody held the name
     */
    boolean forceRelease(Connection connection, LockSql sql, String name) throws SQLException {
        return inTransaction(connection, () -> {
            NameRow row = lockNameRow(connection, sql, name);
            OptionalInt marked = row == null ? OptionalInt.empty() : PermitRows.permitsOf(row.owner());
            if (marked.isEmpty()) {
                try (PreparedStatement release = statements.prepare(connection, sql.forceRelease())) {
                    release.setString(1, name);
                    return release.executeUpdate() == 1;
                }
            }
            int freed;
            try (PreparedStatement release = statements.prepare(connection, sql.forceReleasePermits())) {
                release.setArray(1, keys(connection, name, marked.getAsInt()));
                freed = release.executeUpdate();
            }
            try (PreparedStatement free = statements.prepare(connection, sql.freeNameRow())) {
                free.setString(1, name);
                free.executeUpdate();
            }
            return freed > 0;
        });
    }

    /**
     * @param permits the name's permits
     * @return the array of the name's slot keys, the parameter of the statements that find a permit's row
     */
    static Array keys(Connection connection, String name, int permits) throws SQLException {
        return connection.createArrayOf("VARCHAR", PermitRows.slots(name, permits));
    }

    private @Nullable NameRow lockNameRow(Connection connection, LockSql sql, String name) throws SQLException {
        try (PreparedStatement lock = statements.prepare(connection, sql.lockNameRow())) {
            lock.setString(1, name);
            try (ResultSet rows = lock.executeQuery()) {
                return rows.next() ? new NameRow(rows.getString(1), rows.getLong(2), rows.getBoolean(3),
                        rows.getLong(4)) : null;
            }
        }
    }

    private void insertRow(Connection connection, LockSql sql, String key, String owner, long token,
            long leaseMillis) throws SQLException {
        try (PreparedStatement insert = statements.prepare(connection, sql.insertRow())) {
            insert.setString(1, key);
            insert.setString(2, owner);
            insert.setLong(3, token);
            insert.setLong(4, leaseMillis);
            insert.executeUpdate();
        }
    }

    private void markNameRow(Connection connection, LockSql sql, LockRequest request, String marker, long token)
            throws SQLException {
        try (PreparedStatement mark = statements.prepare(connection, sql.markNameRow())) {
            mark.setString(1, marker);
            mark.setLong(2, token);
            mark.setLong(3, request.leaseMillis());
            mark.setString(4, request.name());
            mark.executeUpdate();
        }
    }

    private boolean takeSlot(Connection connection, LockSql sql, LockRequest request, String key, long token)
            throws SQLException {
        try (PreparedStatement take = statements.prepare(connection, sql.takeSlot())) {
            take.setString(1, request.ownerToken());
            take.setLong(2, token);
            take.setLong(3, request.leaseMillis());
            take.setString(4, key);
            return take.executeUpdate() == 1;
        }
    }

    private void renewSlot(Connection connection, LockSql sql, LockRequest request, String key) throws SQLException {
        try (PreparedStatement renew = statements.prepare(connection, sql.renew())) {
            renew.setLong(1, request.leaseMillis());
            renew.setString(2, key);
            renew.setString(3, request.ownerToken());
            renew.executeUpdate();
        }
    }

    /** @return the name's slot rows that exist, by key */
    private Map<String, Slot> readSlots(Connection connection, LockSql sql, String name, int permits)
            throws SQLException {
        Map<String, Slot> slots = new HashMap<>();
        try (PreparedStatement read = statements.prepare(connection, sql.slots())) {
            read.setArray(1, keys(connection, name, permits));
            try (ResultSet rows = read.executeQuery()) {
                while (rows.next()) {
                    slots.put(rows.getString(1), new Slot(rows.getString(2), rows.getLong(3),
                            rows.getString(2) != null && rows.getBoolean(4)));
                }
            }
        }
        return slots;
    }

    private static boolean anyLive(Map<String, Slot> slots) {
        return slots.values().stream().anyMatch(Slot::live);
    }

    /** Work of one transaction. */
    @FunctionalInterface
    private interface Transaction<T> {

        T run() throws SQLException;
    }

    /**
     * Runs the work in one transaction: committed when it returns, rolled back when it fails (the row locks end
     * either way). The connection's auto-commit is restored for the next user of the pooled connection.
     */
    private static <T> T inTransaction(Connection connection, Transaction<T> work) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        try {
            T result = work.run();
            connection.commit();
            return result;
        }
        catch (SQLException | RuntimeException ex) {
            connection.rollback();
            throw ex;
        }
        finally {
            connection.setAutoCommit(autoCommit);
        }
    }
}
