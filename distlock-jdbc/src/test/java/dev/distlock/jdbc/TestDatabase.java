package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;

import com.zaxxer.hikari.HikariDataSource;

/**
 * One database for tests that run the same on H2 (served over TCP by this JVM) and on PostgreSQL (the shared
 * {@link PostgresTestServer}; the test is skipped, visibly, where this machine has no PostgreSQL binaries) and on
 * MariaDB ({@link MariaDbTestServer}, shared too, skipped the same way): pools
 * for the nodes, a fresh lock table, and plain queries for checking. Closing it closes the pools it made.
 */
final class TestDatabase implements AutoCloseable {

    /** The databases, by the name a parameterized test passes. */
    static final String H2 = "h2";

    static final String H2_POSTGRESQL_MODE = "h2-postgresql-mode";

    static final String POSTGRESQL = "postgresql";

    /** MariaDB ({@link MariaDbTestServer}), with the MySQL dialect and script, through MariaDB Connector/J. */
    static final String MARIADB = "mariadb";

    /** The same MariaDB server through MySQL Connector/J (which reports the product "MySQL"). */
    static final String MARIADB_MYSQL_DRIVER = "mariadb-mysql-connector-j";

    /** The same MariaDB server, MariaDB Connector/J, the nodes' transactions in {@code READ COMMITTED}. */
    static final String MARIADB_READ_COMMITTED = "mariadb-read-committed";

    private final String name;

    private final H2TestServer h2;

    private final PostgresTestServer postgres;

    private final MariaDbTestServer mariadb;

    private final MariaDbDriver driver;

    private final List<HikariDataSource> pools = new ArrayList<>();

    private TestDatabase(String name, H2TestServer h2, PostgresTestServer postgres) {
        this(name, h2, postgres, null, MariaDbDriver.MARIADB);
    }

    private TestDatabase(String name, H2TestServer h2, PostgresTestServer postgres, MariaDbTestServer mariadb,
            MariaDbDriver driver) {
        this.name = name;
        this.h2 = h2;
        this.postgres = postgres;
        this.mariadb = mariadb;
        this.driver = driver;
    }

    /**
     * @param name {@link #H2}, {@link #H2_POSTGRESQL_MODE}, {@link #POSTGRESQL}, {@link #MARIADB},
     *        {@link #MARIADB_MYSQL_DRIVER} or {@link #MARIADB_READ_COMMITTED}
     * @return the database
     * @throws org.opentest4j.TestAbortedException for PostgreSQL or MariaDB on a machine without its binaries
     */
    static TestDatabase of(String name) {
        return switch (name) {
            // A lock wait as long as PostgreSQL's (H2's default gives up after 2 s).
            case H2 -> new TestDatabase(H2, new H2TestServer(";LOCK_TIMEOUT=10000"), null);
            case H2_POSTGRESQL_MODE -> new TestDatabase(H2, new H2TestServer(";MODE=PostgreSQL;LOCK_TIMEOUT=10000"),
                    null);
            case POSTGRESQL -> new TestDatabase(name, null, PostgresTestServer.shared());
            case MARIADB -> new TestDatabase(name, null, null, MariaDbTestServer.shared(),
                    MariaDbDriver.MARIADB);
            case MARIADB_MYSQL_DRIVER -> new TestDatabase(name, null, null, MariaDbTestServer.shared(),
                    MariaDbDriver.MYSQL);
            case MARIADB_READ_COMMITTED -> new TestDatabase(name, null, null, MariaDbTestServer.shared(),
                    MariaDbDriver.MARIADB);
            default -> throw new IllegalArgumentException("No test database '" + name + "'");
        };
    }

    /** Creates the lock table afresh (PostgreSQL is shared by the test classes) from the module's script. */
    void createTable(String table) throws SQLException {
        update("DROP TABLE IF EXISTS " + table);
        try (HikariDataSource setup = pool(1)) {
            TestSchemas.create(setup, name, table);
        }
    }

    /** @return the URL another JVM connects with (user {@code sa} on H2; in the URL on PostgreSQL) */
    String url() {
        return h2 != null ? h2.url() : postgres != null ? postgres.url() : mariadb.url(driver);
    }

    /** Runs the module's script on the table as it is (an existing table is kept, and completed). */
    void createTableKeeping(String table) {
        try (HikariDataSource setup = pool(1)) {
            TestSchemas.create(setup, name, table);
        }
    }

    /** @return a pool of its own (one node's connections) */
    HikariDataSource pool(int size) {
        HikariDataSource pool = h2 != null ? h2.pool(size) : postgres != null ? postgres.pool(size)
                : mariadb.pool(size, driver, MARIADB_READ_COMMITTED.equals(name) ? "TRANSACTION_READ_COMMITTED"
                        : null);
        pools.add(pool);
        return pool;
    }

    /** @return the rows changed by an SQL statement run outside every node */
    int update(String sql) throws SQLException {
        if (h2 != null) {
            try (Statement statement = h2.admin().createStatement()) {
                return statement.executeUpdate(sql);
            }
        }
        try (Connection admin = postgres != null ? postgres.admin() : mariadb.admin();
                Statement statement = admin.createStatement()) {
            return statement.executeUpdate(sql);
        }
    }

    /** @return the first column of the first row of a query with one string parameter, or null without a row */
    Object queryValue(String sql, String parameter) throws SQLException {
        if (h2 != null) {
            return queryValue(h2.admin(), sql, parameter);
        }
        try (Connection admin = postgres != null ? postgres.admin() : mariadb.admin()) {
            return queryValue(admin, sql, parameter);
        }
    }

    private static Object queryValue(Connection connection, String sql, String parameter) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement(sql)) {
            if (parameter != null) {
                query.setString(1, parameter);
            }
            try (ResultSet row = query.executeQuery()) {
                return row.next() ? row.getObject(1) : null;
            }
        }
    }

    @Override
    public void close() throws SQLException {
        pools.forEach(HikariDataSource::close);
        if (h2 != null) {
            h2.close();
        }
    }

    @Override
    public String toString() {
        return name;
    }
}
