package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;

import com.zaxxer.hikari.HikariDataSource;

/**
 * The campaign's door to distlock-jdbc's {@link PostgresTestServer} (its stop and start are package-private, for
 * tests): the shared server, a fresh lock table, a crash or a clean stop, and a start.
 */
public final class PostgresCampaignServer {

    private final PostgresTestServer server;

    private PostgresCampaignServer(PostgresTestServer server) {
        this.server = server;
    }

    /**
     * @param table the lock table to (re)create
     * @return the shared server of this JVM, with an empty lock table
     * @throws org.opentest4j.TestAbortedException when the machine has no PostgreSQL (the caller is skipped)
     */
    public static PostgresCampaignServer shared(String table) {
        PostgresCampaignServer campaign = new PostgresCampaignServer(PostgresTestServer.shared());
        try (Connection admin = campaign.server.admin(); Statement statement = admin.createStatement()) {
            statement.execute("DROP TABLE IF EXISTS " + table);
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not drop " + table, ex);
        }
        try (HikariDataSource setup = campaign.server.pool(1)) {
            TestSchemas.create(setup, "postgresql", table);
        }
        return campaign;
    }

    /** @return the port the server listens on */
    public int port() {
        return Integer.parseInt(server.url().replaceAll("^.*:(\\d+)/.*$", "$1"));
    }

    /** Stops the server as a crash would ({@code pg_ctl stop -m immediate}: WAL replay at the next start). */
    public void crash() {
        server.stop("immediate");
    }

    /** Stops the server cleanly ({@code -m fast}). */
    public void stop() {
        server.stop("fast");
    }

    /**
     * Restarts the server under a faked clock: its processes read the wall clock through libfaketime from then on.
     *
     * @param clock the clock
     */
    public void restartUnder(dev.distlock.test.support.campaign.FakedClock clock) {
        server.stop("fast");
        server.environment(clock.environment());
        server.start();
    }

    /** Starts the server (again) and waits until it accepts connections. */
    public void start() {
        server.start();
    }

    /** @return whether it accepts a connection now */
    public boolean isUp() {
        try (Connection connection = server.admin()) {
            return connection.isValid(2);
        }
        catch (SQLException ex) {
            return false;
        }
    }
}
