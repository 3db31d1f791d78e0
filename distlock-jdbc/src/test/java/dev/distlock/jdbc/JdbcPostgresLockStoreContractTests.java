package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockConfig;
import dev.distlock.spi.LockStore;
import dev.distlock.test.support.LockStoreContractTests;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract on a real PostgreSQL server ({@link PostgresTestServer}; skipped, visibly, where this machine
 * has no PostgreSQL binaries), every node on a connection pool of its own. Stopping the store is a fast shutdown of
 * the server; starting it again keeps the data (the fencing tokens in the table).
 */
class JdbcPostgresLockStoreContractTests extends LockStoreContractTests {

    static final String TABLE = "contract_lock";

    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

    static PostgresTestServer server;

    private final List<HikariDataSource> pools = new ArrayList<>();

    @BeforeAll
    static void startPostgres() throws SQLException {
        server = PostgresTestServer.shared();
        try (Connection admin = server.admin(); Statement statement = admin.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + TABLE);
        }
        try (HikariDataSource setup = server.pool(1)) {
            TestSchemas.create(setup, "postgresql", TABLE);
        }
    }

    @AfterEach
    void closePools() {
        pools.forEach(HikariDataSource::close);
        pools.clear();
    }

    /** The engine waits for each answer as long as the store's statements may run (1 s). */
    @Override
    protected LockConfig config() {
        return super.config().withCommandTimeout(COMMAND_TIMEOUT);
    }

    @Override
    protected boolean sharesReadLocks() {
        return false; // READ is exclusive in the JDBC store
    }

    @Override
    protected LockStore newStore() {
        HikariDataSource pool = server.pool(4);
        pools.add(pool);
        return new JdbcLockStore(pool, JdbcLockConfig.defaults().withTableName(TABLE)
                .withCommandTimeout(COMMAND_TIMEOUT));
    }

    @Override
    protected void stopStore() {
        server.stop("fast");
    }

    @Override
    protected void startStore() {
        server.start();
    }

    @Override
    protected void breakLease(String name) {
        try (Connection admin = server.admin();
                PreparedStatement delete = admin.prepareStatement("DELETE FROM " + TABLE + " WHERE lock_name = ?")) {
            delete.setString(1, name);
            delete.executeUpdate();
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
