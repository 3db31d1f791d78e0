package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.Objects;

import dev.distlock.LockUnavailableException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The statements of a {@link JdbcLockStore}: its SQL, in the {@link RowDialect} of the database the first connection
 * names (by {@link java.sql.DatabaseMetaData#getDatabaseProductName()}), and every statement prepared with the
 * command timeout as its query timeout.
 */
final class JdbcStatements implements StatementPreparer {

    private static final Logger log = LoggerFactory.getLogger(JdbcLockStore.class);

    private final JdbcLockConfig config;

    /** {@link java.sql.Statement#setQueryTimeout} of every statement: the command timeout in whole seconds. */
    private final int queryTimeoutSeconds;

    private volatile @Nullable RowSql sql;

    JdbcStatements(JdbcLockConfig config) {
        this.config = config;
        this.queryTimeoutSeconds = (int) Math.min(Integer.MAX_VALUE,
                (config.commandTimeout().toMillis() + 999) / 1000);
    }

    @Override
    public PreparedStatement prepare(Connection connection, String statementSql) throws SQLException {
        return bounded(connection.prepareStatement(statementSql));
    }

    @Override
    public PreparedStatement prepareAnsweringKey(Connection connection, String statementSql) throws SQLException {
        return bounded(connection.prepareStatement(statementSql, java.sql.Statement.RETURN_GENERATED_KEYS));
    }

    private PreparedStatement bounded(PreparedStatement statement) throws SQLException {
        try {
            // Set only when it differs: H2 keeps the timeout per connection and sends a `SET QUERY_TIMEOUT` to the
            // server at every setQueryTimeout (a round trip per statement), where its getter answers from a cache;
            // the other drivers keep it per statement, so a new statement still gets it.
            if (statement.getQueryTimeout() != queryTimeoutSeconds) {
                statement.setQueryTimeout(queryTimeoutSeconds);
            }
        }
        catch (SQLException ex) {
            statement.close();
            throw ex;
        }
        return statement;
    }

    /**
     * @return the statements, made once the first connection told which database this is
     * @throws LockUnavailableException for a database without a dialect
     */
    RowSql sql(Connection connection) throws SQLException {
        RowSql known = sql;
        if (known == null) {
            String product = connection.getMetaData().getDatabaseProductName();
            try {
                known = RowSql.of(config.tableName(), RowDialect.of(product));
            }
            catch (IllegalStateException ex) {
                log.error("{}: locks cannot be taken in this database", ex.getMessage());
                throw new LockUnavailableException(Objects.requireNonNullElse(ex.getMessage(), ex.toString()), ex);
            }
            sql = known;
        }
        return known;
    }
}
