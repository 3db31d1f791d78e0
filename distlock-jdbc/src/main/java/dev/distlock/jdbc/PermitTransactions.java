package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Map;
import java.util.OptionalInt;

import dev.distlock.jdbc.PermitRowReads.NameRow;
import dev.distlock.jdbc.PermitRowReads.Slot;
import dev.distlock.spi.LockMode;
import dev.distlock.spi.LockRequest;
import org.jspecify.annotations.Nullable;

/**
 * The work on a name used with permits that spans several rows ({@link PermitRows}), each one short transaction
 * that first locks the name's row: a grant of a permit, a lock taking over a name whose permit holders are all gone,
 * and a forced release (of a lock too, which must not free a row that a grant marks meanwhile). Locking the name row
 * first makes the grants of one name follow each other across nodes, so that counting the live slot rows and taking
 * one is atomic, and the next token, read from the name row under its lock, is above every earlier one even for two
 * grants in the same microsecond of the database clock.
 * <p>
 * What the transaction does not see coming is harmless: a release only frees a slot row (one more grant may wait for
 * a later attempt), a renewal of a permit locks the name row itself first, and the row sweep deletes only slot rows
 * free for longer than the retention (a take that finds its row gone answers busy).
 */
final class PermitTransactions {

    private final StatementPreparer statements;

    private final PermitRowReads reads;

    /** @param statements how statements are prepared */
    PermitTransactions(StatementPreparer statements) {
        this.statements = statements;
        this.reads = new PermitRowReads(statements);
    }

    /**
     * A request's attempt on a name used with permits: a permit request on any name, or a lock request on a name
     * whose row is marked for permits (the lock's own statement never takes a marked row whose lease is running).
     *
     * @return granted, busy, or held with other permits (then nothing changed)
     */
    Outcome acquire(Connection connection, RowSql sql, LockRequest request) throws SQLException {
        return Transactions.inTransaction(connection, () -> {
            NameRow row = reads.lockNameRow(connection, sql, request.name());
            if (row == null) {
                if (!(request.mode() instanceof LockMode.Permits)) {
                    return Outcome.BUSY; // the row went since the lock's statement saw it: that one inserts it again
                }
                insertRow(connection, sql, request.name(), PermitRows.marker(request.permits()), 0, 0, null);
                row = reads.lockNameRow(connection, sql, request.name());
                if (row == null) {
                    return Outcome.BUSY;
                }
            }
            OptionalInt marked = PermitRows.permitsOf(row.owner());
            if (marked.isPresent()) {
                int permits = marked.getAsInt();
                if (permits != request.permits()
                        && PermitRowReads.anyLive(reads.slots(connection, sql, request.name(), permits))) {
                    return new Outcome.HeldWithOtherPermits(permits);
                }
                // Every holder of the marker is gone (or the request's permits are the marker's): either kind
                // of request may use the name.
            }
            else if (!(request.mode() instanceof LockMode.Permits)) {
                return Outcome.BUSY; // a lock's row again (freed, or taken meanwhile): the lock's statement decides
            }
            else if (row.owner() != null && row.live()) {
                return new Outcome.HeldWithOtherPermits(1);
            }
            return request.mode() instanceof LockMode.Permits ? grantPermit(connection, sql, request, row)
                    : takeOver(connection, sql, request, row);
        });
    }

    /** A lock takes the name row of a name whose permit holders are all gone. */
    private Outcome takeOver(Connection connection, RowSql sql, LockRequest request, NameRow row)
            throws SQLException {
        long token = row.nextToken();
        try (PreparedStatement take = statements.prepare(connection, sql.permits().takeNameRow())) {
            take.setString(1, request.ownerToken());
            take.setLong(2, token);
            take.setLong(3, request.leaseMillis());
            take.setString(4, request.holder());
            take.setString(5, request.name());
            take.executeUpdate();
        }
        return new Outcome.Granted(token);
    }

    /** A permit: the request's own slot again, or a free or expired one while fewer than the permits are live. */
    private Outcome grantPermit(Connection connection, RowSql sql, LockRequest request, NameRow row)
            throws SQLException {
        String[] keys = PermitRows.slots(request.name(), request.permits());
        Map<String, Slot> slots = reads.slots(connection, sql, request.name(), request.permits());
        String marker = PermitRows.marker(request.permits());
        int live = 0;
        for (String key : keys) {
            Slot slot = slots.get(key);
            if (slot != null && slot.live()) {
                if (request.ownerToken().equals(slot.owner())) {
                    // A repeated attempt of a holder (its answer was lost): the same token, the lease from now.
                    renewSlot(connection, sql, request, key);
                    markNameRow(connection, sql, request, marker, row.lastToken());
                    return new Outcome.Granted(slot.fencingToken());
                }
                live++;
            }
        }
        if (live >= request.permits()) {
            return Outcome.BUSY;
        }
        long token = row.nextToken();
        for (String key : keys) {
            Slot slot = slots.get(key);
            if (slot == null) {
                insertRow(connection, sql, key, request.ownerToken(), token, request.leaseMillis(), request.holder());
            }
            else if (slot.live() || !takeSlot(connection, sql, request, key, token)) {
                continue; // held, or renewed or swept since it was read: another one
            }
            markNameRow(connection, sql, request, marker, token);
            return new Outcome.Granted(token);
        }
        return Outcome.BUSY;
    }

    /**
     * An operator's release of whoever holds the name: its lock holder, or every holder of its permits. The name
     * row keeps its token (the next holder's is above it) and is free for either kind of request. In the
     * transaction that locks the name row, so that a grant of a permit cannot mark the row between the check and
     * the release (a lock's release of a marked row would free the name while its permits are held).
     *
     * @return true when somebody held the name
     */
    boolean forceRelease(Connection connection, RowSql sql, String name) throws SQLException {
        return Transactions.inTransaction(connection, () -> {
            NameRow row = reads.lockNameRow(connection, sql, name);
            OptionalInt marked = row == null ? OptionalInt.empty() : PermitRows.permitsOf(row.owner());
            if (marked.isEmpty()) {
                try (PreparedStatement release = statements.prepare(connection, sql.locks().forceRelease())) {
                    release.setString(1, name);
                    return release.executeUpdate() == 1;
                }
            }
            int freed;
            try (PreparedStatement release = statements.prepare(connection, sql.permits().forceReleasePermits())) {
                sql.dialect().bindKeys(connection, release, 1, PermitRows.slots(name, marked.getAsInt()));
                freed = release.executeUpdate();
            }
            try (PreparedStatement free = statements.prepare(connection, sql.permits().freeNameRow())) {
                free.setString(1, name);
                free.executeUpdate();
            }
            return freed > 0;
        });
    }

    private void insertRow(Connection connection, RowSql sql, String key, String owner, long token,
            long leaseMillis, @Nullable String holder) throws SQLException {
        try (PreparedStatement insert = statements.prepare(connection, sql.permits().insertRow())) {
            insert.setString(1, key);
            insert.setString(2, owner);
            insert.setLong(3, token);
            insert.setLong(4, leaseMillis);
            insert.setString(5, holder);
            insert.executeUpdate();
        }
    }

    private void markNameRow(Connection connection, RowSql sql, LockRequest request, String marker, long token)
            throws SQLException {
        try (PreparedStatement mark = statements.prepare(connection, sql.permits().markNameRow())) {
            mark.setString(1, marker);
            mark.setLong(2, token);
            mark.setLong(3, request.leaseMillis());
            mark.setString(4, request.name());
            mark.executeUpdate();
        }
    }

    private boolean takeSlot(Connection connection, RowSql sql, LockRequest request, String key, long token)
            throws SQLException {
        try (PreparedStatement take = statements.prepare(connection, sql.permits().takeSlot())) {
            take.setString(1, request.ownerToken());
            take.setLong(2, token);
            take.setLong(3, request.leaseMillis());
            take.setString(4, request.holder());
            take.setString(5, key);
            return take.executeUpdate() == 1;
        }
    }

    private void renewSlot(Connection connection, RowSql sql, LockRequest request, String key) throws SQLException {
        try (PreparedStatement renew = statements.prepare(connection, sql.locks().renew())) {
            renew.setLong(1, request.leaseMillis());
            renew.setString(2, key);
            renew.setString(3, request.ownerToken());
            renew.executeUpdate();
        }
    }
}
