package dev.distlock.jdbc;

import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

import dev.distlock.spi.LockStore;
import dev.distlock.test.support.StoreFixture;

/**
 * The contract's {@code mariadb} set-up: a MariaDB server of its own from the machine's binaries
 * ({@link MariaDbTestServer#startNew()}, so that "down" stops it and "up" starts it on the same data), the lock table
 * made by the module's script ({@code schema-mysql.sql}), the MariaDB JDBC driver, a Hikari pool per node.
 * Unavailable, with the reason shown, where the binaries are missing.
 */
final class MariaDbFixture implements StoreFixture {

    static final String ID = "mariadb";

    private final MariaDbTestServer server;

    private MariaDbFixture(MariaDbTestServer server) {
        this.server = server;
    }

    /** @return the fixture, or unavailable without the MariaDB binaries */
    static Availability start() {
        Optional<MariaDbTestServer> started = MariaDbTestServer.startNew();
        if (started.isEmpty()) {
            return new Availability.Unavailable("JDBC, MariaDB", MariaDbTestServer.missing());
        }
        JdbcFixtures.createTable(started.get().url(), null);
        return new Availability.Ready(new MariaDbFixture(started.get()));
    }

    @Override
    public String id() {
        return ID;
    }

    @Override
    public String label() {
        return "JDBC, MariaDB " + server.version().replaceAll("^(\\d+\\.\\d+).*", "$1");
    }

    @Override
    public String setup() {
        return "MariaDB " + server.version() + " (InnoDB, REPEATABLE READ), started by the harness in a temporary "
                + "directory, MariaDB Connector/J; a Hikari pool of " + JdbcFixtures.POOL_SIZE + " per node";
    }

    @Override
    public LockStore newStore(List<AutoCloseable> resources) {
        return JdbcFixtures.node(server.url(), null, resources);
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
                List.of(server.url(), JdbcLockConfig.defaults().tableName())));
    }

    @Override
    public void close() {
        server.destroy();
    }
}
