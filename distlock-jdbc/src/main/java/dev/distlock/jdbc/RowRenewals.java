package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import dev.distlock.spi.Lease;
import dev.distlock.spi.LockMode;

/**
 * The renewals of the row template: a batch of leases in one transaction, locks and permits each in one JDBC batch
 * of owner-checked updates.
 */
final class RowRenewals {

    private final StatementPreparer preparer;

    /** @param preparer how statements are prepared */
    RowRenewals(StatementPreparer preparer) {
        this.preparer = preparer;
    }

    /**
     * @param connection a connection of the pool
     * @param statements the database's statements
     * @param batch the leases, in row order
     * @return per lease of the batch, the rows renewed (1 when renewed); locks and permits each in one JDBC batch,
     *         all in one transaction (one commit, one log flush, for the whole batch)
     */
    int[] renew(Connection connection, RowSql statements, List<Lease> batch) throws SQLException {
        List<Lease> locks = new ArrayList<>(batch.size());
        List<Lease> permitLeases = new ArrayList<>();
        for (Lease lease : batch) {
            ((lease.request().mode() instanceof LockMode.Permits) ? permitLeases : locks).add(lease);
        }
        Map<Lease, Integer> renewed = Transactions.inTransaction(connection, () -> {
            Map<Lease, Integer> counts = new LinkedHashMap<>();
            if (!locks.isEmpty()) {
                try (PreparedStatement statement = preparer.prepare(connection, statements.locks().renew())) {
                    for (Lease lease : locks) {
                        statement.setLong(1, lease.request().leaseMillis());
                        statement.setString(2, lease.request().name());
                        statement.setString(3, lease.request().ownerToken());
                        statement.addBatch();
                    }
                    put(counts, locks, statement.executeBatch());
                }
            }
            if (!permitLeases.isEmpty()) {
                put(counts, permitLeases, renewPermits(connection, statements, permitLeases));
            }
            return counts;
        });
        int[] counts = new int[batch.size()];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = renewed.getOrDefault(batch.get(i), 0);
        }
        return counts;
    }

    /**
     * Permits: first the name rows' leases (in name order, as every transaction on a name with permits locks its
     * name row before a slot row: no cycle of waits with a grant), only where the name is still held with these
     * permits; then the holders' slot rows, only of those names. A name row's lease so stays at least as long as
     * every permit's, and a permit is never renewed after a forced release or a lock took the name over.
     */
    private int[] renewPermits(Connection connection, RowSql statements, List<Lease> leases) throws SQLException {
        int[] marked = extendMarkers(connection, statements, leases);
        List<Lease> held = new ArrayList<>(leases.size());
        for (int i = 0; i < leases.size(); i++) {
            if (marked[i] > 0) {
                held.add(leases.get(i));
            }
        }
        Map<Lease, Integer> renewed = new LinkedHashMap<>();
        if (!held.isEmpty()) {
            renewSlots(connection, statements, held, renewed);
        }
        int[] counts = new int[leases.size()];
        for (int i = 0; i < counts.length; i++) {
            counts[i] = renewed.getOrDefault(leases.get(i), 0);
        }
        return counts;
    }

    /**
     * The holders' slot rows; where each statement reads the clock anew ({@link RowDialect#clockPerStatement()}),
     * the name rows' leases once more after them (already locked by this transaction: no new wait), since a slot's
     * lease counted from a later statement would otherwise end after its name row's.
     */
    private void renewSlots(Connection connection, RowSql statements, List<Lease> held, Map<Lease, Integer> renewed)
            throws SQLException {
        try (PreparedStatement statement = preparer.prepare(connection, statements.permits().renewPermit())) {
            for (Lease lease : held) {
                statement.setLong(1, lease.request().leaseMillis());
                statements.dialect().bindKeys(connection, statement, 2,
                        PermitRows.slots(lease.request().name(), lease.request().permits()));
                statement.setString(3, lease.request().ownerToken());
                statement.addBatch();
            }
            put(renewed, held, statement.executeBatch());
        }
        if (statements.dialect().clockPerStatement()) {
            extendMarkers(connection, statements, held);
        }
    }

    private int[] extendMarkers(Connection connection, RowSql statements, List<Lease> leases) throws SQLException {
        try (PreparedStatement statement = preparer.prepare(connection, statements.permits().extendMarker())) {
            for (Lease lease : leases) {
                statement.setLong(1, lease.request().leaseMillis());
                statement.setString(2, lease.request().name());
                statement.setString(3, PermitRows.marker(lease.request().permits()));
                statement.addBatch();
            }
            return statement.executeBatch();
        }
    }

    private static void put(Map<Lease, Integer> renewed, List<Lease> leases, int[] counts) {
        for (int i = 0; i < leases.size(); i++) {
            renewed.put(leases.get(i), counts[i]);
        }
    }
}
