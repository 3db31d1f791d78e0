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
     * either way). The connection's auto-commit is restored for the next user of the pooled connection.
     *
     * @param connection the connection
     * @param work the work
     * @return the work's result
     * @throws SQLException when the work, the commit or the rollback failed
     */
    static <T> T inTransaction(Connection connection, Work<T> work) throws SQLException {
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
