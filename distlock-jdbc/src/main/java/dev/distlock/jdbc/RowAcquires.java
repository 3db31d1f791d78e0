package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ThreadLocalRandom;

import dev.distlock.spi.Attempt;
import dev.distlock.spi.LockMode;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.Waiting;

/**
 * The attempts of a {@link JdbcLockStore}: one upsert takes a free or expired row (a name with permits goes through
 * {@link PermitTransactions}); a refusal answers busy after a back-off, since a JDBC waiter polls.
 */
final class RowAcquires {

    /** Bounds of the back-off between attempts of a waiter; the engine caps it at 500 ms in any case. */
    static final long MIN_BACKOFF_MILLIS = 5;

    static final long MAX_BACKOFF_MILLIS = 100;

    private final StatementPreparer preparer;

    private final PermitTransactions permits;

    RowAcquires(StatementPreparer preparer, PermitTransactions permits) {
        this.preparer = preparer;
        this.permits = permits;
    }

    /**
     * @return the outcome of one attempt, in the caller's transaction
     * @throws SQLException when the database fails
     */
    Outcome take(Connection connection, RowSql statements, LockRequest request)
            throws SQLException {
        return request.mode() instanceof LockMode.Permits ? permits.acquire(connection, statements, request)
                : acquireLock(connection, statements, request);
    }

    /**
     * @return the attempt's answer: granted, failed for a name held with other permits, or busy with a back-off
     *         (a poll: no line to join, so a last try and a queueing one are alike)
     */
    static CompletionStage<Attempt> answer(Outcome outcome, LockRequest request,
            Waiting waiting) {
        if (outcome instanceof Outcome.Granted granted) {
            return CompletableFuture.completedFuture(Attempt.granted(granted.fencingToken()));
        }
        if (outcome instanceof Outcome.HeldWithOtherPermits other) {
            return CompletableFuture.failedFuture(request.permitsMismatch(other.permits()));
        }
        return CompletableFuture.completedFuture(Attempt.busy(Duration.ofMillis(backoff(request,
                waiting.remaining().toMillis()))));
    }

    /**
     * A lock: the one upsert statement takes a free or expired row. Refused, it may have met a name used with
     * permits, whose marked row's lease runs as long as its longest permit's: the name is then the permits' (an
     * error for this request) while any is held, else the lock may take it over.
     */
    private Outcome acquireLock(Connection connection, RowSql statements, LockRequest request)
            throws SQLException {
        Outcome taken = upsert(connection, statements, request);
        if (taken instanceof Outcome.Granted) {
            return taken;
        }
        String holder;
        try (PreparedStatement owner = preparer.prepare(connection, statements.locks().liveOwner())) {
            owner.setString(1, request.name());
            try (ResultSet rows = owner.executeQuery()) {
                holder = rows.next() ? rows.getString(1) : null;
            }
        }
        return PermitRows.permitsOf(holder).isPresent() ? permits.acquire(connection, statements, request)
                : Outcome.BUSY;
    }

    /**
     * The acquire statement, one round trip: it answers the token of a row it took, as a returned row or as its
     * generated key ({@link RowDialect#acquireAnswersKey()}), and nothing (or the key 0) when refused.
     */
    private Outcome upsert(Connection connection, RowSql statements, LockRequest request) throws SQLException {
        LockRowSql locks = statements.locks();
        boolean key = statements.dialect().acquireAnswersKey();
        try (PreparedStatement statement = key ? preparer.prepareAnsweringKey(connection, locks.acquire())
                : preparer.prepare(connection, locks.acquire())) {
            locks.bindAcquire(statement, request.name(), request.ownerToken(), request.leaseMillis(),
                    request.holder());
            if (!key) {
                return granted(statement.executeQuery());
            }
            statement.executeUpdate();
            return granted(statement.getGeneratedKeys());
        }
    }

    /** Tokens are at least the database clock in µs, never 0: a key of 0 is a refusal, as no row is. */
    private static Outcome granted(ResultSet answer) throws SQLException {
        try (ResultSet rows = answer) {
            long token = rows.next() ? rows.getLong(1) : 0;
            return token != 0 ? new Outcome.Granted(token) : Outcome.BUSY;
        }
    }

    /**
     * The wait before the next attempt: short at first, so that a lock held briefly changes hands quickly, then
     * longer the longer the caller has waited (fewer queries for a lock held long), with jitter so that waiters on
     * several nodes do not ask in step.
     */
    static long backoff(LockRequest request, long remainingWaitMillis) {
        long waited = Math.max(0, request.waitTime().toMillis() - remainingWaitMillis);
        long base = Math.min(MAX_BACKOFF_MILLIS, Math.max(MIN_BACKOFF_MILLIS, waited / 4));
        return base + ThreadLocalRandom.current().nextLong(base / 2 + 1);
    }
}
