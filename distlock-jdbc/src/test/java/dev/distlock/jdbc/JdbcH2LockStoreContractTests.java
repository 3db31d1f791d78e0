package dev.distlock.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockConfig;
import dev.distlock.spi.LockStore;
import dev.distlock.test.support.LockStoreContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The store contract on H2 served over TCP (plain H2 mode), every node on a connection pool of its own. Stopping the
 * TCP server breaks every node's connections and refuses new ones, as a database going down does.
 */
class JdbcH2LockStoreContractTests extends LockStoreContractTests {

    static final String TABLE = "contract_lock";

    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

    /** One server per compatibility mode (per test class), made on first use. */
    private static final Map<String, H2TestServer> SERVERS = new ConcurrentHashMap<>();

    private final List<HikariDataSource> pools = new ArrayList<>();

    /** @return the H2 compatibility settings of this run, appended to the URL */
    String mode() {
        return "";
    }

    private H2TestServer server() {
        return SERVERS.computeIfAbsent(mode(), mode -> {
            H2TestServer server = new H2TestServer(mode);
            try (HikariDataSource setup = server.pool(1)) {
                server.createTable(setup, TABLE);
            }
            return server;
        });
    }

    @BeforeAll
    static void noServerYet() {
        SERVERS.clear();
    }

    @AfterAll
    static void stopH2() throws Exception {
        for (H2TestServer server : SERVERS.values()) {
            server.close();
        }
        SERVERS.clear();
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
        HikariDataSource pool = server().pool(4);
        pools.add(pool);
        return new JdbcLockStore(pool, JdbcLockConfig.defaults().withTableName(TABLE)
                .withCommandTimeout(COMMAND_TIMEOUT));
    }

    @Override
    protected void stopStore() {
        server().stop();
    }

    @Override
    protected void startStore() {
        server().start();
    }

    @Override
    protected void breakLease(String name) {
        try (PreparedStatement delete = server().admin().prepareStatement("DELETE FROM " + TABLE
                + " WHERE lock_name = ?")) {
            delete.setString(1, name);
            delete.executeUpdate();
        }
        catch (SQLException ex) {
            throw new IllegalStateException(ex);
        }
    }
}
