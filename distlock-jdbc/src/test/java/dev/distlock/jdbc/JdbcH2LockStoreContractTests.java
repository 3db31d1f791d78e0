package dev.distlock.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.spi.LockStore;
import dev.distlock.test.LockStoreContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract on H2 served over TCP (plain H2 mode), every node on a connection pool of its own. Stopping the
 * TCP server breaks every node's connections and refuses new ones, as a database going down does.
 */
class JdbcH2LockStoreContractTests extends LockStoreContractTests {

    static final String TABLE = "contract_lock";

    static H2TestServer server;

    private final List<HikariDataSource> pools = new ArrayList<>();

    /** @return the H2 compatibility settings of this run */
    static String mode() {
        return "";
    }

    @BeforeAll
    static void startH2() throws Exception {
        server = new H2TestServer(mode());
        try (HikariDataSource setup = server.pool(1)) {
            server.createTable(setup, TABLE);
        }
    }

    @AfterAll
    static void stopH2() throws Exception {
        server.close();
    }

    @AfterEach
    void closePools() {
        pools.forEach(HikariDataSource::close);
        pools.clear();
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
                .withCommandTimeout(Duration.ofSeconds(1)));
    }

    @Override
    protected void stopStore() {
        server.stop();
    }

    @Override
    protected void startStore() {
        server.start();
    }

    @Override
    protected void breakLease(String name) {
        try (PreparedStatement delete = server.admin().prepareStatement("DELETE FROM " + TABLE
                + " WHERE lock_name = ?")) {
            delete.setString(1, name);
            delete.executeUpdate();
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
