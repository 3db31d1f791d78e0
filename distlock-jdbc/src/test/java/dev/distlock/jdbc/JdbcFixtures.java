package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.spi.LockStore;
import dev.distlock.embedded.LoopbackPorts;
import dev.distlock.test.support.RawCycle;
import dev.distlock.test.support.StoreFixture;
import org.h2.tools.Server;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.sql.init.DatabaseInitializationMode;

/**
 * The JDBC store's fixtures: {@code h2} (an H2 TCP server in this JVM over an in-memory database, so the nodes reach
 * it through a socket as they would a database server) and {@code postgres} (a PostgreSQL server from the
 * machine's binaries, {@link PostgresTestServer}, with durable commits; unavailable without them) and {@code mariadb}
 * ({@link MariaDbFixture}, durable too). Every node has a Hikari pool of its own; the lock table is created as an
 * application creates it (the module's script).
 */
public final class JdbcFixtures implements StoreFixture.Provider {

    /** One node's pool: a workload's 8 threads plus the watchdog's renewals. */
    static final int POOL_SIZE = 10;

    @Override
    public List<String> ids() {
        return List.of("h2", "postgres", MariaDbFixture.ID);
    }

    @Override
    public List<String> contractIds() {
        return List.of("h2", "postgres", MariaDbFixture.ID);
    }

    /**
     * Variants a pass of CI's runs the contract on, not every build (which stays under 10 minutes on 2 cores):
     * MariaDB through MySQL Connector/J (40 s; the statements, transactions, lease clock and contention are tested on
     * both drivers in every build: {@code JdbcAcquireStatementTests}, {@code JdbcTransactionsTests},
     * {@code JdbcLeaseClockTests}, {@code JdbcMariaDbContentionTests}), and the two set-ups of
     * {@link JdbcContractFixtures} (H2 in PostgreSQL mode, as the sample application runs it and its
     * {@code FlashSaleJdbcIntegrationTests} test it in every build; the generic quorum store, which every build tests
     * in {@code QuorumLockStoreTests} and through Redlock's contract).
     */
    @Override
    public List<String> namedContractIds() {
        return List.of(MariaDbFixture.MYSQL_DRIVER_ID, JdbcContractFixtures.H2_POSTGRES_MODE,
                JdbcContractFixtures.QUORUM);
    }

    @Override
    public StoreFixture.Availability start(String id) throws SQLException {
        if ("h2".equals(id)) {
            return new StoreFixture.Availability.Ready(H2.start());
        }
        if (MariaDbFixture.ID.equals(id) || MariaDbFixture.MYSQL_DRIVER_ID.equals(id)) {
            return MariaDbFixture.start(id);
        }
        if (!"postgres".equals(id)) {
            return new StoreFixture.Availability.Ready(JdbcContractFixtures.start(id));
        }
        Optional<PostgresTestServer> started = PostgresTestServer.startNew(true);
        if (started.isEmpty()) {
            return new StoreFixture.Availability.Unavailable("JDBC, PostgreSQL", "no PostgreSQL server binaries on this machine "
                    + "(Debian's `postgresql`, or `DISTLOCK_PG_BIN`)");
        }
        PostgresTestServer server = started.get();
        createTable(server.url(), null);
        String setup = "PostgreSQL " + server.version() + " from " + server.binaries() + ", started by the harness in "
                + "a temporary directory under " + System.getProperty("java.io.tmpdir") + ", default durability "
                + "(`fsync` and `synchronous_commit` on); a Hikari pool of " + POOL_SIZE + " per node";
        return new StoreFixture.Availability.Ready(new ServerFixture("postgres", "JDBC, PostgreSQL "
                + server.version().replaceAll("\\..*", ""), setup, server.url(), new ServerFixture.Server(
                        server::admin, () -> server.stop("fast"), server::start, server::close)));
    }

    static HikariDataSource pool(String url, @Nullable String user) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        if (user != null) {
            config.setUsername(user);
            config.setPassword("");
        }
        config.setMaximumPoolSize(POOL_SIZE);
        config.setMinimumIdle(POOL_SIZE);
        return new HikariDataSource(config);
    }

    /** Creates the lock table the way an application does (the module's script for the database). */
    static void createTable(String url, @Nullable String user) {
        try (HikariDataSource pool = pool(url, user)) {
            if (!new JdbcLockSchemaInitializer(pool, DatabaseInitializationMode.ALWAYS, JdbcLockConfig.defaults())
                    .initializeDatabase()) {
                throw new IllegalStateException("No lock table script ran for " + url);
            }
        }
    }

    static LockStore node(String url, @Nullable String user, List<AutoCloseable> resources) {
        HikariDataSource pool = pool(url, user);
        resources.add(pool);
        return new JdbcLockStore(pool, JdbcLockConfig.defaults());
    }

    static void deleteRow(Connection connection, String name) throws SQLException {
        try (connection; PreparedStatement delete = connection.prepareStatement("DELETE FROM "
                + JdbcLockConfig.defaults().tableName() + " WHERE lock_name = ?")) {
            delete.setString(1, name);
            delete.executeUpdate();
        }
    }

    private static final class H2 implements StoreFixture {

        private final Connection keeper;

        private final String database;

        private Server server;

        private H2(Connection keeper, String database, Server server) {
            this.keeper = keeper;
            this.database = database;
            this.server = server;
        }

        static H2 start() throws SQLException {
            String database = "locks-" + UUID.randomUUID();
            // Keeps the in-memory database open between calls (it would vanish with its last connection).
            Connection keeper = DriverManager.getConnection("jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1", "sa",
                    "");
            Server server = Server.createTcpServer("-tcpPort", String.valueOf(LoopbackPorts.free()), "-ifExists").start();
            H2 h2 = new H2(keeper, database, server);
            createTable(h2.url(), "sa");
            return h2;
        }

        private String url() {
            return "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/mem:" + database;
        }

        @Override
        public String id() {
            return "h2";
        }

        @Override
        public String label() {
            return "JDBC, H2 (TCP, in memory)";
        }

        @Override
        public String setup() {
            String version;
            try {
                version = keeper.getMetaData().getDatabaseProductVersion();
            }
            catch (SQLException ex) {
                version = "(version unknown)";
            }
            return "H2 " + version + " TCP server in the harness's JVM, in-memory database (no disk), default mode; "
                    + "a Hikari pool of " + POOL_SIZE + " per node";
        }

        @Override
        public LockStore newStore(List<AutoCloseable> resources) {
            return node(url(), "sa", resources);
        }

        @Override
        public boolean sharesReadLocks() {
            return false; // READ is exclusive in the JDBC store
        }

        @Override
        public void stopServer() {
            server.stop();
        }

        @Override
        public void startServer() {
            try {
                server = Server.createTcpServer("-tcpPort", String.valueOf(server.getPort()), "-ifExists").start();
            }
            catch (SQLException ex) {
                throw new IllegalStateException("Could not start the H2 TCP server again", ex);
            }
        }

        @Override
        public void breakLease(String name) {
            try {
                deleteRow(DriverManager.getConnection("jdbc:h2:mem:" + database, "sa", ""), name);
            }
            catch (SQLException ex) {
                throw new IllegalStateException("Could not delete the row of " + name, ex);
            }
        }

        @Override
        public Optional<HolderCommand> holder() {
            return Optional.of(new HolderCommand(HolderProcess.class,
                    List.of(url(), JdbcLockConfig.defaults().tableName())));
        }

        @Override
        public Optional<RawCycle> rawCycle() {
            return Optional.of(new JdbcRawCycle(this));
        }

        @Override
        public void close() {
            server.stop();
            try {
                keeper.close();
            }
            catch (SQLException ex) {
                // closing: nothing left to do
            }
        }
    }
}
