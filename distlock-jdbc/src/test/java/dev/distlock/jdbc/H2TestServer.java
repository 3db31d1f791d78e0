package dev.distlock.jdbc;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.UUID;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.embedded.LoopbackPorts;
import org.h2.tools.Server;

/**
 * An H2 database served over TCP by this JVM, so that nodes reach it as a real network database and a test can
 * stop the server (every node's connections break, new ones are refused) and start it again with the data kept.
 * The database is in memory, kept open by {@link #admin()} while the server is down.
 */
final class H2TestServer implements AutoCloseable {

    private final String database = "locks-" + UUID.randomUUID();

    private final String mode;

    private final int port;

    private final Connection keeper;

    private Server server;

    /**
     * @param mode H2 compatibility settings appended to the URL, e.g. {@code ;MODE=PostgreSQL}, or ""
     */
    H2TestServer(String mode) {
        this.mode = mode;
        try {
            this.keeper = DriverManager.getConnection("jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1" + mode, "sa",
                    "");
            this.port = LoopbackPorts.free();
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
        start();
    }

    /** @return the URL nodes connect with */
    String url() {
        // No AUTO_RECONNECT: after a server restart the store itself must get rid of the broken pooled connections.
        return "jdbc:h2:tcp://127.0.0.1:" + port + "/mem:" + database + mode;
    }

    synchronized void start() {
        try {
            server = Server.createTcpServer("-tcpPort", String.valueOf(port), "-ifExists").start();
        }
        catch (SQLException ex) {
            throw new IllegalStateException("Could not start H2 on port " + port, ex);
        }
    }

    /** Stops serving: open connections of every node break, new ones are refused. The data stays. */
    synchronized void stop() {
        server.stop();
    }

    /** @return a connection inside this JVM that works while the server is stopped, for setting up and checking */
    Connection admin() {
        return keeper;
    }

    /**
     * @param poolSize the pool size
     * @return a pool of its own (one node's connections), with Hikari's default 30 s connection timeout so that
     *         only the store bounds its calls
     */
    HikariDataSource pool(int poolSize) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url());
        config.setUsername("sa");
        config.setPassword("");
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(0);
        config.setInitializationFailTimeout(-1);
        config.setConnectionTimeout(Duration.ofSeconds(30).toMillis());
        return new HikariDataSource(config);
    }

    /** Creates the lock table from the module's script. */
    void createTable(DataSource dataSource, String table) {
        TestSchemas.create(dataSource, "h2", table);
    }

    @Override
    public synchronized void close() throws SQLException {
        server.stop();
        keeper.close();
    }
}
