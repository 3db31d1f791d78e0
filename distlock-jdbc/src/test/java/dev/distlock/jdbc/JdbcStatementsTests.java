package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every statement of the store is bounded by the command timeout, on H2 over TCP, where the timeout belongs to the
 * connection: it is set on the connection's first statement, kept by the next ones (H2 answers the getter from a
 * cache, where each setter call is a `SET QUERY_TIMEOUT` round trip), and set again once the application's own
 * statement on the pooled connection changed it.
 */
class JdbcStatementsTests {

    private final H2TestServer server = new H2TestServer("");

    @AfterEach
    void close() throws SQLException {
        server.close();
    }

    @Test
    void everyStatementCarriesTheCommandTimeoutAlsoAfterTheApplicationChangedItOnThePooledConnection()
            throws SQLException {
        JdbcStatements statements = new JdbcStatements(JdbcLockConfig.defaults()
                .withCommandTimeout(Duration.ofSeconds(3)));
        try (HikariDataSource pool = server.pool(1); Connection connection = pool.getConnection()) {
            for (int i = 0; i < 2; i++) {
                try (PreparedStatement statement = statements.prepare(connection, "SELECT 1")) {
                    assertThat(statement.getQueryTimeout()).as("statement %d", i).isEqualTo(3);
                }
            }
            try (Statement application = connection.createStatement()) {
                application.setQueryTimeout(7);
            }
            try (PreparedStatement statement = statements.prepare(connection, "SELECT 1")) {
                assertThat(statement.getQueryTimeout()).as("after the application's 7 s").isEqualTo(3);
            }
        }
    }
}
