package dev.distlock.jdbc;

import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

import dev.distlock.spi.LockStore;
import dev.distlock.test.support.StoreFixture;

/**
 * The MariaDB set-ups: a durable MariaDB server of its own from the machine's binaries
 * ({@link MariaDbTestServer#startNew(boolean)}, so that "down" stops it and "up" starts it on the same data), the
 * lock table made by the module's script ({@code schema-mysql.sql}), a Hikari pool per node, and one of the two JDBC
 * drivers: {@code mariadb} with MariaDB Connector/J, {@code mariadb-mysql-connector-j} with MySQL Connector/J (which
 * reports the product "MySQL" and maps error codes to states of its own, so the dialect is checked through both).
 * The holder JVM of the crash suite uses the same driver. Workload S of the benchmarks runs on {@code mariadb}.
 * Unavailable, with the reason shown, where the binaries are missing.
 */
final class MariaDbFixture implements StoreFixture {

    /** MariaDB Connector/J. */
    static final String ID = "mariadb";

    /** MySQL Connector/J on the same server. */
    static final String MYSQL_DRIVER_ID = "mariadb-mysql-connector-j";

    private final MariaDbTestServer server;

    private final MariaDbDriver driver;

    private MariaDbFixture(MariaDbTestServer server, MariaDbDriver driver) {
        this.server = server;
        this.driver = driver;
    }

    /**
     * @param id {@link #ID} or {@link #MYSQL_DRIVER_ID}
     * @return the fixture, or unavailable without the MariaDB binaries
     */
    static Availability start(String id) {
        MariaDbDriver driver = MYSQL_DRIVER_ID.equals(id) ? MariaDbDriver.MYSQL
                : MariaDbDriver.MARIADB;
        Optional<MariaDbTestServer> started = MariaDbTestServer.startNew(true);
        if (started.isEmpty()) {
            return new Availability.Unavailable("JDBC, MariaDB, " + driver.label(), MariaDbTestServer.missing());
        }
        JdbcFixtures.createTable(started.get().url(driver), null);
        return new Availability.Ready(new MariaDbFixture(started.get(), driver));
    }

    @Override
    public String id() {
        return driver == MariaDbDriver.MYSQL ? MYSQL_DRIVER_ID : ID;
    }

    @Override
    public String label() {
        String label = "JDBC, MariaDB " + server.version().replaceAll("^(\\d+\\.\\d+).*", "$1");
        return driver == MariaDbDriver.MYSQL ? label + ", MySQL Connector/J" : label;
    }

    @Override
    public String setup() {
        return "MariaDB " + server.version() + " (InnoDB, REPEATABLE READ, the redo log flushed at every commit), "
                + "started by the harness in a temporary directory, " + driver.label() + "; a Hikari pool of "
                + JdbcFixtures.POOL_SIZE + " per node";
    }

    @Override
    public LockStore newStore(List<AutoCloseable> resources) {
        return JdbcFixtures.node(server.url(driver), null, resources);
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
        server.start();
    }

    @Override
    public void breakLease(String name) {
        try {
            JdbcFixtures.deleteRow(server.admin(), name);
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not delete the row of " + name, ex);
        }
    }

    @Override
    public Optional<HolderCommand> holder() {
        return Optional.of(new HolderCommand(HolderProcess.class,
                List.of(server.url(driver), JdbcLockConfig.defaults().tableName())));
    }

    @Override
    public void close() {
        server.destroy();
    }
}
