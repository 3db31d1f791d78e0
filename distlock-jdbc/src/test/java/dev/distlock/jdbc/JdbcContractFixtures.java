package dev.distlock.jdbc;

import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.quorum.QuorumConfig;
import dev.distlock.quorum.QuorumLockStore;
import dev.distlock.spi.LockStore;
import dev.distlock.test.support.StoreFixture;

/**
 * The JDBC set-ups only the store contract runs on, when named ({@link JdbcFixtures#namedContractIds()}):
 * {@code h2-postgres-mode} (H2 over TCP in PostgreSQL compatibility mode with lower-case identifiers, as the sample
 * application runs it) and
 * {@code jdbc-quorum} (the generic quorum store over three JDBC stores, each on an H2 server of its own: "down" is an
 * outage of every database, a broken lease is deleted from every one). Every node has pools of its own.
 */
final class JdbcContractFixtures {

    static final String H2_POSTGRES_MODE = "h2-postgres-mode";

    static final String QUORUM = "jdbc-quorum";

    private static final String TABLE = "contract_lock";

    /** The store's statements, and a quorum's wait for its members, are bounded by 1 s. */
    private static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

    private JdbcContractFixtures() {
    }

    static StoreFixture start(String id) {
        List<H2TestServer> servers = new ArrayList<>();
        int count = QUORUM.equals(id) ? 3 : 1;
        String mode = QUORUM.equals(id) ? "" : ";MODE=PostgreSQL;DATABASE_TO_LOWER=TRUE;DEFAULT_NULL_ORDERING=HIGH";
        for (int i = 0; i < count; i++) {
            H2TestServer server = new H2TestServer(mode);
            try (HikariDataSource setup = server.pool(1)) {
                server.createTable(setup, TABLE);
            }
            servers.add(server);
        }
        return new H2Servers(id, servers);
    }

    /**
     * @param id the fixture's id
     * @param servers one H2 server, or a quorum's three
     */
    private record H2Servers(String id, List<H2TestServer> servers) implements StoreFixture {

        @Override
        public String label() {
            return QUORUM.equals(id) ? "JDBC, quorum of 3 H2" : "JDBC, H2 in PostgreSQL mode";
        }

        @Override
        public String setup() {
            return servers.size() + " H2 TCP server(s) in the test's JVM, in-memory; a Hikari pool of 4 per node";
        }

        @Override
        public LockStore newStore(List<AutoCloseable> resources) {
            List<LockStore> nodes = new ArrayList<>();
            for (H2TestServer server : servers) {
                HikariDataSource pool = server.pool(4);
                resources.add(pool);
                nodes.add(new JdbcLockStore(pool, JdbcLockConfig.defaults().withTableName(TABLE)
                        .withCommandTimeout(COMMAND_TIMEOUT)));
            }
            return nodes.size() == 1 ? nodes.get(0) : new QuorumLockStore(new QuorumConfig(nodes, COMMAND_TIMEOUT));
        }

        @Override
        public boolean sharesReadLocks() {
            return false; // READ is exclusive in the JDBC store, so in a quorum of them
        }

        /** A quorum tells the highest token of its majority (QuorumDescription). */
        @Override
        public boolean describesExactTokens() {
            return !QUORUM.equals(id);
        }

        @Override
        public void stopServer() {
            servers.forEach(H2TestServer::stop);
        }

        @Override
        public void startServer() {
            servers.forEach(H2TestServer::start);
        }

        @Override
        public void breakLease(String name) {
            for (H2TestServer server : servers) {
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

        @Override
        public void close() {
            for (H2TestServer server : servers) {
                try {
                    server.close();
                }
                catch (SQLException ex) {
                    // closing: the next server still stops
                }
            }
        }
    }
}
