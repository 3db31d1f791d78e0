package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;

/** Runs several statements of the row template as one transaction on a connection of the pool. */
final class Transactions {

    /** Work of one transaction. */
    @FunctionalInterface
    interface Work<T> {

        /**
         * @return the result
         * @throws SQLException when the database fails (the transaction is then rolled back)
         */
        T run() throws SQLException;
    }

    private Transactions() {
    }

    /**
     * Runs the work in one transaction: committed when it returns, rolled back when it fails (the row locks end
     * either way). The connection's auto-commit is restored for the next user of the pooled connection, but only
     * once the transaction ended: switching auto-commit on commits an open transaction (JDBC says so), which after a
     * failed rollback would commit half of the work. The connection then goes back to the pool with the
     * transaction open, and the pool rolls it back or drops the connection.
     *
     * @param connection the connection
     * @param work the work
     * @return the work's result
     * @throws SQLException when the work, the commit or the rollback failed (a failed rollback is suppressed in
     *         the work's failure)
     */
    static <T> T inTransaction(Connection connection, Work<T> work) throws SQLException {
        boolean autoCommit = connection.getAutoCommit();
        connection.setAutoCommit(false);
        boolean ended = false;
        try {
            T result = work.run();
            connection.commit();
            ended = true;
            return result;
        }
        catch (SQLException | RuntimeException ex) {
            try {
                connection.rollback();
                ended = true;
            }
            catch (SQLException rollback) {
                ex.addSuppressed(rollback);
            }
            throw ex;
        }
        finally {
            if (ended) {
                connection.setAutoCommit(autoCommit);
            }
        }
    }
}
