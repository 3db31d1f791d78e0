package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Optional;

import dev.distlock.spi.LockStore;
import dev.distlock.test.support.RawCycle;
import dev.distlock.test.support.StoreFixture;

/**
 * A fixture on one database server that the harness started from the machine's binaries (PostgreSQL, MariaDB):
 * every node has a Hikari pool of its own on the server's URL, "down" and "up" stop and start the server on the
 * same data, a broken lease is the name's row deleted, and the crash suite's holder JVM connects with the same URL.
 *
 * @param id the fixture's id
 * @param label its short name for reports
 * @param setup how the server runs, for reports
 * @param url the nodes' JDBC URL (which picks the driver)
 * @param server what the fixture does to the server
 */
record ServerFixture(String id, String label, String setup, String url, Server server) implements StoreFixture {

    /**
     * What the fixture does to its server.
     *
     * @param admin opens a connection outside every node, for deleting rows
     * @param stop stops the server, keeping its data
     * @param start starts it again after a stop
     * @param destroy stops it for good and deletes its data
     */
    record Server(Admin admin, Runnable stop, Runnable start, Runnable destroy) {
    }

    /** Opens an administrator's connection. */
    @FunctionalInterface
    interface Admin {

        /** @return a new connection */
        Connection open() throws SQLException;
    }

    @Override
    public LockStore newStore(List<AutoCloseable> resources) {
        return JdbcFixtures.node(url, null, resources);
    }

    @Override
    public boolean sharesReadLocks() {
        return false; // READ is exclusive in the JDBC store
    }

    @Override
    public void stopServer() {
        server.stop().run();
    }

    @Override
    public void startServer() {
        server.start().run();
    }

    @Override
    public void breakLease(String name) {
        try {
            JdbcFixtures.deleteRow(server.admin().open(), name);
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not delete the row of " + name, ex);
        }
    }

    /** The holder main, through the fixture's own driver (either Connector/J for MariaDB). */
    @Override
    public Optional<HolderCommand> holder() {
        return Optional.of(new HolderCommand(HolderProcess.class, List.of(url, JdbcLockConfig.defaults()
                .tableName())));
    }

    @Override
    public Optional<RawCycle> rawCycle() {
        return Optional.of(new JdbcRawCycle(this));
    }

    @Override
    public void close() {
        server.destroy().run();
    }
}
