package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;

import com.zaxxer.hikari.HikariDataSource;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A transaction of the row template whose rollback fails must not be committed on the way out. JDBC commits an open
 * transaction when auto-commit is switched back on, so restoring it after a failed rollback would commit half of a
 * grant (a slot row without its name row's mark, say). The connection goes back to the pool as it is instead, and
 * the pool rolls it back (or drops it).
 */
class JdbcTransactionsTests {

    private static final String TABLE = "tx_lock";

    @ParameterizedTest
    @ValueSource(strings = { TestDatabase.H2, TestDatabase.MARIADB, TestDatabase.MARIADB_MYSQL_DRIVER })
    void aTransactionWhoseRollbackFailedIsNotCommittedWhenTheConnectionGoesBack(String name) throws Exception {
        try (TestDatabase database = TestDatabase.of(name); HikariDataSource pool = database.pool(1)) {
            database.createTable(TABLE);
            try (Connection connection = rollbackFails(pool.getConnection())) {
                assertThatThrownBy(() -> Transactions.inTransaction(connection, () -> {
                    try (PreparedStatement insert = connection.prepareStatement("INSERT INTO " + TABLE
                            + " (lock_name, owner_token, fencing_token, lease_until) VALUES (?, ?, 1, "
                            + "CURRENT_TIMESTAMP)")) {
                        insert.setString(1, "half");
                        insert.setString(2, "owner-a");
                        insert.executeUpdate();
                    }
                    throw new SQLException("The second statement of the transaction failed", "40001");
                })).isInstanceOf(SQLException.class).hasMessageContaining("second statement")
                        .satisfies(ex -> assertThat(ex.getSuppressed()).singleElement()
                                .satisfies(rollback -> assertThat(rollback).hasMessageContaining("rollback")));
            }
            assertThat(database.queryValue("SELECT owner_token FROM " + TABLE + " WHERE lock_name = ?", "half"))
                    .as("the half-done transaction's row").isNull();
        }
    }

    /** The pool's connection, except that its rollbacks fail (as on a connection that broke in between). */
    private static Connection rollbackFails(Connection target) {
        return Proxies.of(Connection.class, (proxy, method, args) -> {
            if (method.getName().equals("rollback")) {
                throw new SQLException("The rollback failed", "08006");
            }
            return method.invoke(target, args);
        });
    }
}
