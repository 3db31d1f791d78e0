package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

/** Prepares a statement with the store's query timeout ({@link JdbcStatements}). */
interface StatementPreparer {

    /**
     * @param connection the connection
     * @param sql the statement
     * @return the prepared statement, bounded by the command timeout
     * @throws SQLException when the driver fails
     */
    PreparedStatement prepare(Connection connection, String sql) throws SQLException;

    /**
     * @param connection the connection
     * @param sql an update that answers a generated key ({@link RowDialect#acquireAnswersKey()})
     * @return the prepared statement, asked for its generated keys, bounded by the command timeout
     * @throws SQLException when the driver fails
     */
    PreparedStatement prepareAnsweringKey(Connection connection, String sql) throws SQLException;
}
