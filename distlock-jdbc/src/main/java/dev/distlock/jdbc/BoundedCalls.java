package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.SynchronousQueue;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicInteger;

import javax.sql.DataSource;

import dev.distlock.LockUnavailableException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs database work within {@code distlock.command-timeout}, getting the connection included. A connection pool
 * may block for its own timeout (30 s by default) and a JDBC query timeout does not cover a database that stopped
 * answering, so the work runs on a thread of this class while the caller waits at most the timeout: then it gets a
 * {@link LockUnavailableException} (fail closed) and the work, if it still runs, is told that nobody waits for it.
 * Work that was given up before it began is skipped; work that finished after it was given up is undone (an
 * acquire that succeeded too late is released), so a timed-out caller leaves nothing held. The same holds for a
 * caller that is interrupted while it waits, also when the work had already committed and only the hand-over of its
 * result was missing: that work is undone on a call thread, never silently dropped.
 * <p>
 * The connections come from the application's {@link DataSource} and are never bound to the caller's transaction:
 * each call commits on its own.
 */
final class BoundedCalls implements AutoCloseable {

    /** Database work on a connection. */
    @FunctionalInterface
    interface Work<T> {

        /**
         * @param connection a connection of the pool, auto-commit as the pool hands it out
         * @param queryTimeoutSeconds for {@link java.sql.Statement#setQueryTimeout}, so that the database also gives
         *        up (a JDBC timeout is in whole seconds; the caller's bound is exact)
         * @return the result
         * @throws SQLException when the database fails
         */
        T run(Connection connection, int queryTimeoutSeconds) throws SQLException;
    }

    /** Undoes the effect of work whose caller gave up before it finished. */
    @FunctionalInterface
    interface Undo<T> {

        /**
         * @param connection the connection the work ran on
         * @param result what the work returned
         * @throws SQLException when the database fails
         */
        void undo(Connection connection, T result) throws SQLException;
    }

    /** Tries of one call when connections turn out broken (after a database restart the pool may hold several). */
    private static final int MAX_TRIES = 3;

    /** The threads are only as many as calls in flight; past this, a database that hangs fails calls at once. */
    private static final int MAX_THREADS = 64;

    private static final Logger log = LoggerFactory.getLogger(JdbcLockStore.class);

    private static final AtomicInteger POOLS = new AtomicInteger();

    private final DataSource dataSource;

    private final long timeoutNanos;

    private final ThreadPoolExecutor executor;

    BoundedCalls(DataSource dataSource, long timeoutNanos) {
        this.dataSource = dataSource;
        this.timeoutNanos = timeoutNanos;
        int pool = POOLS.incrementAndGet();
        AtomicInteger threads = new AtomicInteger();
        this.executor = new ThreadPoolExecutor(0, MAX_THREADS, 30, TimeUnit.SECONDS, new SynchronousQueue<>(),
                runnable -> {
                    Thread thread = new Thread(runnable, "distlock-jdbc-" + pool + "-" + threads.incrementAndGet());
                    thread.setDaemon(true);
                    return thread;
                });
    }

    /**
     * @param what what the call does, for messages
     * @param work the work
     * @param undo what undoes the work when the caller gave up after it began, or {@code null}
     * @return the work's result
     * @throws LockUnavailableException when the database failed, or no result came within the timeout
     */
    <T> T call(String what, Work<T> work, @Nullable Undo<T> undo) {
        return call(what, work, undo, timeoutNanos);
    }

    /**
     * @param timeoutNanos the bound of this call
     * @see #call(String, Work, Undo)
     */
    <T> T call(String what, Work<T> work, @Nullable Undo<T> undo, long timeoutNanos) {
        long deadline = System.nanoTime() + timeoutNanos;
        Task<T> task = new Task<>(work, undo, deadline);
        Future<T> future;
        try {
            future = executor.submit(task);
        }
        catch (RejectedExecutionException ex) {
            throw new LockUnavailableException("The database could not " + what + ": " + MAX_THREADS
                    + " calls are already waiting for it" + (executor.isShutdown() ? " (the store is closed)" : ""),
                    ex);
        }
        try {
            return future.get(timeoutNanos, TimeUnit.NANOSECONDS);
        }
        catch (TimeoutException ex) {
            if (task.giveUp()) {
                throw new LockUnavailableException("The database did not " + what + " within distlock."
                        + "command-timeout (" + TimeUnit.NANOSECONDS.toMillis(timeoutNanos) + " ms)", ex);
            }
            return task.result(); // it finished just now; no second wait that an interrupt could break
        }
        catch (ExecutionException ex) {
            throw failure(what, ex.getCause() != null ? ex.getCause() : ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            if (!task.giveUp() && undo != null) {
                // The work committed before the interrupt came but its result was not handed over yet: undo it
                // (an acquire: release it), as for a caller that timed out, or nobody would hold what it took.
                undoLater(what, undo, task.result());
            }
            throw new LockUnavailableException("Interrupted while waiting for the database to " + what, ex);
        }
    }

    /** Undoes committed work on a call thread of its own: the interrupted caller does not wait for the database. */
    private <T> void undoLater(String what, Undo<T> undo, T result) {
        try {
            executor.execute(() -> {
                try (Connection connection = dataSource.getConnection()) {
                    undo(undo, connection, result, connection.getAutoCommit());
                }
                catch (SQLException | RuntimeException ex) {
                    log.debug("Could not undo '{}' of an interrupted caller (its lease will expire)", what, ex);
                }
            });
        }
        catch (RejectedExecutionException ex) {
            log.debug("Could not undo '{}' of an interrupted caller (its lease will expire)", what, ex);
        }
    }

    private static <T> void undo(Undo<T> undo, Connection connection, T result, boolean autoCommit)
            throws SQLException {
        undo.undo(connection, result);
        if (!autoCommit) {
            connection.commit();
        }
    }

    private static LockUnavailableException failure(String what, Throwable cause) {
        if (cause instanceof LockUnavailableException unavailable) {
            return unavailable;
        }
        return new LockUnavailableException("The database could not " + what + ": " + cause.getMessage(), cause);
    }

    @Override
    public void close() {
        executor.shutdown();
    }

    /** One call: runs the work unless the caller gave up first, and undoes it when the caller gave up meanwhile. */
    private final class Task<T> implements Callable<T> {

        private static final int WAITING = 0;

        private static final int DONE = 1;

        private static final int GIVEN_UP = 2;

        private final Work<T> work;

        private final @Nullable Undo<T> undo;

        private final long deadline;

        private final AtomicInteger state = new AtomicInteger(WAITING);

        /** The work's result, set before the state becomes {@code DONE} (so visible to whoever sees it DONE). */
        private volatile @Nullable T result;

        Task(Work<T> work, @Nullable Undo<T> undo, long deadline) {
            this.work = work;
            this.undo = undo;
            this.deadline = deadline;
        }

        /** @return true when the caller gave up before the work finished (else {@link #result()} is there) */
        boolean giveUp() {
            return state.compareAndSet(WAITING, GIVEN_UP) || state.get() == GIVEN_UP;
        }

        /** @return the result of work that finished ({@link #giveUp()} returned false) */
        T result() {
            T done = result;
            if (state.get() != DONE || done == null) {
                throw new IllegalStateException("No result: the work has not finished");
            }
            return done;
        }

        /**
         * Runs the work; when the pooled connection turns out to be broken (the database restarted since it was
         * opened), discards it and tries once more on another one while time is left: the work is idempotent for
         * the same owner token, and the caller should fail only when the database is really gone.
         */
        @Override
        public @Nullable T call() throws SQLException {
            for (int tries = 1;; tries++) {
                try {
                    return callOnce();
                }
                catch (SQLException ex) {
                    if (state.get() == DONE) {
                        // Only returning the connection failed: the work committed and the caller may have its
                        // result already; neither fail nor repeat it.
                        log.debug("Could not return a connection after a lock call", ex);
                        return result;
                    }
                    if (!ConnectionPools.isBroken(ex) || tries >= MAX_TRIES || deadline - System.nanoTime() <= 0
                            || state.get() == GIVEN_UP) {
                        throw ex;
                    }
                    log.debug("Retrying on another connection after: {}", ex.getMessage());
                }
            }
        }

        private @Nullable T callOnce() throws SQLException {
            try (Connection connection = dataSource.getConnection()) {
                if (state.get() == GIVEN_UP) {
                    return null; // the caller is gone: do nothing at all
                }
                long left = Math.max(1, TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime()));
                boolean autoCommit = connection.getAutoCommit();
                T result;
                try {
                    result = work.run(connection, (int) Math.min(Integer.MAX_VALUE, (left + 999) / 1000));
                    if (!autoCommit) {
                        connection.commit(); // a pool configured without auto-commit: never leave the lock row open
                    }
                }
                catch (SQLException | RuntimeException ex) {
                    if (ex instanceof SQLException sql && ConnectionPools.isBroken(sql)) {
                        ConnectionPools.discard(dataSource, connection);
                    }
                    else {
                        rollbackQuietly(connection, autoCommit);
                    }
                    throw ex;
                }
                this.result = result;
                Undo<T> undo = this.undo;
                if (!state.compareAndSet(WAITING, DONE) && undo != null && result != null) {
                    undoLate(undo, connection, result, autoCommit);
                }
                return result;
            }
        }

        private void rollbackQuietly(Connection connection, boolean autoCommit) {
            if (!autoCommit) {
                try {
                    connection.rollback();
                }
                catch (SQLException ex) {
                    log.debug("Rollback failed", ex);
                }
            }
        }

        private void undoLate(Undo<T> undo, Connection connection, T result, boolean autoCommit) {
            try {
                undo(undo, connection, result, autoCommit);
                log.debug("Undid a lock call whose caller had stopped waiting");
            }
            catch (SQLException | RuntimeException ex) {
                log.debug("Could not undo a lock call whose caller had stopped waiting (its lease will expire)", ex);
            }
        }
    }
}
