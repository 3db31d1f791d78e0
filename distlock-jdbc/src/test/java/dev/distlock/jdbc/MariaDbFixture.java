package dev.distlock.jdbc;

import java.util.Optional;

import dev.distlock.test.support.StoreFixture.Availability;

/**
 * The MariaDB set-ups: a durable MariaDB server of its own from the machine's binaries
 * ({@link MariaDbTestServer#startNew(boolean)}, so that "down" stops it and "up" starts it on the same data), the
 * lock table made by the module's script ({@code schema-mysql.sql}), a Hikari pool per node, and one of the two JDBC
 * drivers: {@code mariadb} with MariaDB Connector/J, {@code mariadb-mysql-connector-j} with MySQL Connector/J (which
 * reports the product "MySQL" and maps error codes to states of its own, so the dialect is checked through both).
 * The holder JVM of the crash suite uses the same driver. Workload S of the benchmarks runs on {@code mariadb}.
 * Unavailable, with the reason shown, where the binaries are missing.
 */
final class MariaDbFixture {

    /** MariaDB Connector/J. */
    static final String ID = "mariadb";

    /** MySQL Connector/J on the same server. */
    static final String MYSQL_DRIVER_ID = "mariadb-mysql-connector-j";

    private MariaDbFixture() {
    }

    /**
     * @param id {@link #ID} or {@link #MYSQL_DRIVER_ID}
     * @return the fixture, or unavailable without the MariaDB binaries
     */
    static Availability start(String id) {
        MariaDbDriver driver = MYSQL_DRIVER_ID.equals(id) ? MariaDbDriver.MYSQL : MariaDbDriver.MARIADB;
        Optional<MariaDbTestServer> started = MariaDbTestServer.startNew(true);
        if (started.isEmpty()) {
            return new Availability.Unavailable("JDBC, MariaDB, " + driver.label(), MariaDbTestServer.missing());
        }
        MariaDbTestServer server = started.get();
        JdbcFixtures.createTable(server.url(driver), null);
        String version = server.version();
        String label = "JDBC, MariaDB " + version.replaceAll("^(\\d+\\.\\d+).*", "$1")
                + (driver == MariaDbDriver.MYSQL ? ", MySQL Connector/J" : "");
        String setup = "MariaDB " + version + " (InnoDB, REPEATABLE READ, the redo log flushed at every commit), "
                + "started by the harness in a temporary directory, " + driver.label() + "; a Hikari pool of "
                + JdbcFixtures.POOL_SIZE + " per node";
        return new Availability.Ready(new ServerFixture(id, label, setup, server.url(driver),
                new ServerFixture.Server(server::admin, server::stop, server::start, server::destroy)));
    }
}
