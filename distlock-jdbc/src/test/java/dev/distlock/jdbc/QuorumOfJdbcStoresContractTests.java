package dev.distlock.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.core.LockConfig;
import dev.distlock.quorum.QuorumConfig;
import dev.distlock.quorum.QuorumLockStore;
import dev.distlock.spi.LockStore;
import dev.distlock.test.support.LockStoreContractTests;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;

/**
 * The quorum store is generic: the store contract also passes on a quorum of three JDBC stores, each on a database of
 * its own (three H2 servers over TCP). "Down" is an outage of every database; a broken lease is deleted from every
 * database.
 */
class QuorumOfJdbcStoresContractTests extends LockStoreContractTests {

    private static final String TABLE = "quorum_lock";

    private static final List<H2TestServer> SERVERS = new ArrayList<>();

    private final List<HikariDataSource> pools = new ArrayList<>();

    @BeforeAll
    static void startDatabases() {
        for (int i = 0; i < 3; i++) {
            H2TestServer server = new H2TestServer("");
            try (HikariDataSource setup = server.pool(1)) {
                server.createTable(setup, TABLE);
            }
            SERVERS.add(server);
        }
    }

    @AfterAll
    static void stopDatabases() throws Exception {
        for (H2TestServer server : SERVERS) {
            server.close();
        }
        SERVERS.clear();
    }

    @AfterEach
    void closePools() {
        pools.forEach(HikariDataSource::close);
        pools.clear();
    }

    @Override
    protected LockConfig config() {
        return super.config().withCommandTimeout(JdbcH2LockStoreContractTests.COMMAND_TIMEOUT);
    }

    @Override
    protected boolean sharesReadLocks() {
        return false; // READ is exclusive in the JDBC store, so in a quorum of them
    }

    @Override
    protected LockStore newStore() {
        List<LockStore> nodes = new ArrayList<>();
        for (H2TestServer server : SERVERS) {
            HikariDataSource pool = server.pool(4);
            pools.add(pool);
            nodes.add(new JdbcLockStore(pool, JdbcLockConfig.defaults().withTableName(TABLE)
                    .withCommandTimeout(JdbcH2LockStoreContractTests.COMMAND_TIMEOUT)));
        }
        return new QuorumLockStore(new QuorumConfig(nodes, JdbcH2LockStoreContractTests.COMMAND_TIMEOUT));
    }

    @Override
    protected void stopStore() {
        SERVERS.forEach(H2TestServer::stop);
    }

    @Override
    protected void startStore() {
        SERVERS.forEach(H2TestServer::start);
    }

    @Override
    protected void breakLease(String name) {
        for (H2TestServer server : SERVERS) {
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
}
