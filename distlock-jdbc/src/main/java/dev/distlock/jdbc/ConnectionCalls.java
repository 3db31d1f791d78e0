package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicInteger;
import javax.sql.DataSource;

import dev.distlock.LockUnavailableException;
import dev.distlock.spi.BlockingCalls;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs database work off the caller's thread, on the store's {@link BlockingCalls} pool, and answers with a stage.
 * JDBC blocks (a pool may wait its own timeout for a connection, a statement waits for row locks), so the work
 * cannot run on the caller's thread; the engine bounds how long the caller waits for the answer, and undoes an
 * attempt whose answer came too late. What stays here is what only JDBC needs: a connection of the application's
 * {@link DataSource} per call (never bound to the caller's transaction: each call commits on its own), a commit
 * for a pool that hands out connections without auto-commit, and another try on a fresh connection when a pooled
 * one turns out broken.
 */
final class ConnectionCalls implements AutoCloseable {

    /** Database work on a connection. */
    @FunctionalInterface
    interface Work<T> {

        /**
         * @param connection a connection of the pool, auto-commit as the pool hands it out
         * @return the result
         * @throws SQLException when the database fails
         */
        T run(Connection connection) throws SQLException;
    }

    /** Tries of one call when connections turn out broken (after a database restart the pool may hold several). */
    private static final int MAX_TRIES = 3;

    /** The threads are only as many as calls in flight; past this, a database that hangs fails calls at once. */
    private static final int MAX_THREADS = 64;

    private static final Logger log = LoggerFactory.getLogger(JdbcLockStore.class);

    private static final AtomicInteger POOLS = new AtomicInteger();

    private final DataSource dataSource;

    private final BlockingCalls pool;

    ConnectionCalls(DataSource dataSource, Duration commandTimeout) {
        this.dataSource = dataSource;
        // No queue: a call waits for no thread, so a database that hangs fails the 65th call at once.
        this.pool = new BlockingCalls("jdbc-" + POOLS.incrementAndGet(), MAX_THREADS, 0, commandTimeout,
                "the DataSource's pool is exhausted or the database hangs");
    }

    /**
     * @param what what the call does, for messages
     * @param work the work
     * @return the work's result, or a failure with a {@link LockUnavailableException} that says what failed
     */
    <T> CompletionStage<T> submit(String what, Work<T> work) {
        return pool.submit(what, () -> run(what, work));
    }

    /**
     * Runs the work on the calling thread (for background work that has a thread of its own). When the pooled
     * connection turns out to be broken (the database restarted since it was opened), discards it and tries again
     * on another one: the work is idempotent for the same owner token, and the caller should fail only when the
     * database is really gone.
     *
     * @see #submit(String, Work)
     * @throws LockUnavailableException when the database failed
     */
    <T> T run(String what, Work<T> work) {
        for (int tries = 1;; tries++) {
            try {
                return runOnce(what, work);
            }
            catch (SQLException ex) {
                if (!ConnectionPools.isBroken(ex) || tries >= MAX_TRIES) {
                    throw failure(what, ex);
                }
                log.debug("Retrying on another connection after: {}", ex.getMessage());
            }
            catch (RuntimeException ex) {
                throw failure(what, ex);
            }
        }
    }

    private <T> T runOnce(String what, Work<T> work) throws SQLException {
        Connection connection;
        try {
            connection = dataSource.getConnection();
        }
        catch (SQLException ex) {
            // The pool validates what it hands out and has waited its own timeout: no point in asking again.
            throw failure(what, ex);
        }
        T result;
        try {
            boolean autoCommit = connection.getAutoCommit();
            try {
                result = work.run(connection);
                if (!autoCommit) {
                    connection.commit(); // a pool configured without auto-commit: never leave the lock row open
                }
            }
            catch (SQLException | RuntimeException ex) {
                if (!autoCommit) {
                    rollbackQuietly(connection);
                }
                throw ex;
            }
        }
        catch (SQLException | RuntimeException ex) {
            if (ex instanceof SQLException sql && ConnectionPools.isBroken(sql)) {
                ConnectionPools.discard(dataSource, connection);
            }
            closeQuietly(connection);
            throw ex;
        }
        // The work committed: a failure to return the connection must neither fail nor repeat it.
        closeQuietly(connection);
        return result;
    }

    private static void rollbackQuietly(Connection connection) {
        try {
            connection.rollback();
        }
        catch (SQLException ex) {
            log.debug("Rollback failed", ex);
        }
    }

    private static void closeQuietly(Connection connection) {
        try {
            connection.close();
        }
        catch (SQLException ex) {
            log.debug("Could not return a connection after a lock call", ex);
        }
    }

    private static LockUnavailableException failure(String what, Throwable cause) {
        if (cause instanceof LockUnavailableException unavailable) {
            return unavailable;
        }
        return new LockUnavailableException("The database could not " + what + ": " + cause.getMessage(), cause);
    }

    /** Stops taking calls; calls under way finish on their threads. */
    @Override
    public void close() {
        pool.close();
    }
}
