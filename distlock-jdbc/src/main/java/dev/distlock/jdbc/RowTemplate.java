package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

import dev.distlock.LockInfo;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockMode;
import dev.distlock.spi.LockRequest;

/**
 * The record template of the {@link JdbcLockStore}: a lock is a row compared and set by the database, with an owner,
 * a lease ending on the database clock and a fencing token; the algorithm is here once, and a {@link RowDialect}
 * only writes it in its database's SQL. Each step runs on a connection the caller gives (the store runs it on its
 * call threads) and answers in rows:
 * <ul>
 * <li>acquire ({@link RowAcquires}): one statement inserts the row of a new name or takes a free, expired or own row,
 * with a token above the row's last and at least the database clock ({@link RowRules#nextToken}); a refusal on a
 * name used with permits goes on in a transaction ({@link PermitTransactions});</li>
 * <li>renew ({@link RowRenewals}): owner-checked updates of running leases, a batch in one transaction;</li>
 * <li>release: one owner-checked update of a running lease that keeps the released lease's token as the floor of
 * the next one (the fencing floor on release of {@link dev.distlock.spi.LockStore}); a permit's slot row needs no
 * floor, since its name row counts the tokens;</li>
 * <li>force release: whoever holds the name, owner unchecked, the row's token kept ({@link PermitTransactions});</li>
 * <li>sweep: a batch delete of rows free for longer than the row retention whose token the clock has passed
 * ({@link RowRules#sweepable()}), run by the {@link RowSweeper};</li>
 * <li>modes: permits are rows of the same table ({@link PermitRows}); a shared request takes the row as an exclusive
 * one does (an exclusive read lock is always safe, only less concurrent: {@link JdbcLockStore}).</li>
 * </ul>
 * Failures come back as {@link SQLException}s, a missing table with how to create it ({@link SqlErrors}); an acquire
 * that lost a race for the row answers busy.
 */
final class RowTemplate {

    private final String table;

    private final JdbcStatements statements;

    private final PermitTransactions permits;

    private final RowAcquires acquires;

    private final RowRenewals renewals;

    /** @param config the store settings: the table and the statements' timeout */
    RowTemplate(JdbcLockConfig config) {
        this.table = config.tableName();
        this.statements = new JdbcStatements(config);
        this.permits = new PermitTransactions(statements);
        this.acquires = new RowAcquires(statements, permits);
        this.renewals = new RowRenewals(statements);
    }

    /**
     * @return granted, busy (also when another caller won a race for the row), or held with other permits
     * @throws SQLException when the database fails
     */
    Outcome acquire(Connection connection, LockRequest request) throws SQLException {
        RowSql sql = statements.sql(connection);
        try {
            return acquires.take(connection, sql, request);
        }
        catch (SQLException ex) {
            if (sql.dialect().isContention(ex)) {
                return Outcome.BUSY; // another caller took the row at the same moment: as good as busy
            }
            throw SqlErrors.explain(ex, table, sql.dialect());
        }
    }

    /**
     * @param fencingFloor the released lease's token, kept by the row when higher than its own (see
     *        {@link LockRowSql#release()}); 0 for an undo, whose grant nobody used
     * @return 1 when the request's lease was running and is released, else 0
     */
    int release(Connection connection, LockRequest request, long fencingFloor) throws SQLException {
        RowSql sql = statements.sql(connection);
        try {
            if (request.mode() instanceof LockMode.Permits) {
                try (PreparedStatement statement = statements.prepare(connection, sql.permits().releasePermit())) {
                    sql.dialect().bindKeys(connection, statement, 1,
                            PermitRows.slots(request.name(), request.permits()));
                    statement.setString(2, request.ownerToken());
                    return statement.executeUpdate();
                }
            }
            try (PreparedStatement statement = statements.prepare(connection, sql.locks().release())) {
                statement.setLong(1, fencingFloor);
                statement.setString(2, request.name());
                statement.setString(3, request.ownerToken());
                return statement.executeUpdate();
            }
        }
        catch (SQLException ex) {
            throw SqlErrors.explain(ex, table, sql.dialect());
        }
    }

    /** @return true when somebody held the name (its lock, or any of its permits) */
    boolean forceRelease(Connection connection, String name) throws SQLException {
        RowSql sql = statements.sql(connection);
        try {
            return permits.forceRelease(connection, sql, name);
        }
        catch (SQLException ex) {
            throw SqlErrors.explain(ex, table, sql.dialect());
        }
    }

    /** @return the name's holder ({@link JdbcDescriptions}), or empty when it is free */
    Optional<LockInfo> describe(Connection connection, String name) throws SQLException {
        RowSql sql = statements.sql(connection);
        try {
            return JdbcDescriptions.describe(connection, sql, table, name);
        }
        catch (SQLException ex) {
            throw SqlErrors.explain(ex, table, sql.dialect());
        }
    }

    /**
     * @param ordered the leases in row order ({@link JdbcLockStore}: two batches never wait for each other in a
     *        cycle)
     * @return per lease, 1 when renewed
     */
    int[] renew(Connection connection, List<Lease> ordered) throws SQLException {
        RowSql sql = statements.sql(connection);
        try {
            return renewals.renew(connection, sql, ordered);
        }
        catch (SQLException ex) {
            throw SqlErrors.explain(ex, table, sql.dialect());
        }
    }

    /**
     * @param retentionMillis the row retention
     * @param batch the most rows to delete
     * @return how many rows of names free for longer than the retention were deleted
     */
    int deleteExpired(Connection connection, long retentionMillis, int batch) throws SQLException {
        RowSql sql = statements.sql(connection);
        try (PreparedStatement statement = statements.prepare(connection, sql.locks().deleteExpired())) {
            sql.locks().bindDeleteExpired(statement, retentionMillis, batch);
            return statement.executeUpdate();
        }
        catch (SQLException ex) {
            throw SqlErrors.explain(ex, table, sql.dialect());
        }
    }

    /** Asks the table a cheap question: fails when the database or the table is missing. */
    void check(Connection connection) throws SQLException {
        RowSql sql = statements.sql(connection);
        try (PreparedStatement statement = statements.prepare(connection, sql.locks().health())) {
            statement.executeQuery().close();
        }
        catch (SQLException ex) {
            throw SqlErrors.explain(ex, table, sql.dialect());
        }
    }
}
