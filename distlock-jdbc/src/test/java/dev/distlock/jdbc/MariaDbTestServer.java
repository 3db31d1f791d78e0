package dev.distlock.jdbc;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Supplier;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.embedded.LoopbackPorts;
import dev.distlock.embedded.ProcessSignals;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.awaitility.Awaitility.await;

/**
 * A real MariaDB server for the tests, made from the binaries installed on the machine (Debian's
 * {@code mariadb-server}: {@code /usr/sbin/mariadbd} and {@code mariadb-install-db}, or {@code DISTLOCK_MARIADB_BIN}
 * for the directory of both) in a temporary directory on a free loopback port, without grant tables (the tests
 * test SQL, not accounts). One server per test JVM, shared by the test classes and stopped by a shutdown hook.
 * Where the binaries are missing, {@link #shared()} skips the calling tests with a visible reason. A fixture that
 * stops and starts its server has one of its own ({@link #startNew()}).
 */
final class MariaDbTestServer {

    private static final Logger log = LoggerFactory.getLogger(MariaDbTestServer.class);

    private static Optional<MariaDbTestServer> shared;

    private static String missing = "";

    private final List<String> command;

    /** Added to the server's environment at every start (e.g. a faked clock), asked anew at each. */
    private volatile Supplier<Map<String, String>> environment = Map::of;

    private final Path directory;

    private final int port;

    private Process process;

    private MariaDbTestServer(List<String> command, Path directory, int port) {
        this.command = List.copyOf(command);
        this.directory = directory;
        this.port = port;
    }

    /**
     * @return the server of this JVM, started on first use
     * @throws org.opentest4j.TestAbortedException when this machine has no MariaDB binaries (the test is skipped)
     */
    static synchronized MariaDbTestServer shared() {
        if (shared == null) {
            shared = startNew(false);
        }
        Assumptions.assumeTrue(shared.isPresent(), () -> missing);
        return shared.get();
    }

    /**
     * @return a server of its own (a fixture that stops and starts it), or empty without the binaries (then
     *         {@link #missing()} says why)
     */
    static Optional<MariaDbTestServer> startNew() {
        return startNew(false);
    }

    /**
     * @param durable whether every commit is flushed to the redo log on disk ({@code innodb_flush_log_at_trx_commit=1},
     *        MariaDB's default), so that a killed server forgets no committed grant; the tests otherwise flush once
     *        a second, since they test locking, not the disk
     * @return a server of its own, or empty without the binaries (then {@link #missing()} says why)
     */
    static synchronized Optional<MariaDbTestServer> startNew(boolean durable) {
        String configured = System.getenv("DISTLOCK_MARIADB_BIN");
        List<Path> candidates = (configured != null && !configured.isBlank()) ? List.of(Path.of(configured))
                : List.of(Path.of("/usr/sbin"), Path.of("/usr/bin"));
        Optional<Path> server = candidates.stream().map(dir -> dir.resolve("mariadbd")).filter(Files::isExecutable)
                .findFirst();
        Optional<Path> installDb = Stream.concat(candidates.stream(), Stream.of(Path.of("/usr/bin")))
                .map(dir -> dir.resolve("mariadb-install-db")).filter(Files::isExecutable).findFirst();
        if (server.isEmpty() || installDb.isEmpty()) {
            missing = "MariaDB tests SKIPPED: no mariadbd and mariadb-install-db on this machine; install Debian's "
                    + "mariadb-server package or set DISTLOCK_MARIADB_BIN to their directory";
            log.warn(missing);
            return Optional.empty();
        }
        try {
            Path directory = Files.createTempDirectory("distlock-mariadb");
            String data = directory.resolve("data").toString();
            List<String> asRoot = isRoot() ? List.of("--user=root") : List.of();
            // A temporary directory of its own: servers sharing /tmp collide on their temporary tables' file names
            // (seen with a second server installing at the same time).
            String tmp = Files.createDirectory(directory.resolve("tmp")).toString();
            List<String> install = new ArrayList<>(List.of(installDb.get().toString(), "--no-defaults",
                    "--datadir=" + data, "--tmpdir=" + tmp, "--skip-test-db",
                    "--auth-root-authentication-method=normal"));
            install.addAll(asRoot);
            run(directory, install);
            int port = LoopbackPorts.free();
            List<String> command = new ArrayList<>(List.of(server.get().toString(), "--no-defaults",
                    "--datadir=" + data, "--tmpdir=" + tmp, "--port=" + port, "--bind-address=127.0.0.1",
                    "--socket=" + directory.resolve("mariadb.sock"), "--pid-file=" + directory.resolve("mariadb.pid"),
                    "--skip-grant-tables", "--skip-name-resolve", "--skip-log-bin", "--innodb-buffer-pool-size=32M",
                    "--innodb-flush-log-at-trx-commit=" + (durable ? "1" : "0")));
            command.addAll(asRoot);
            MariaDbTestServer started = new MariaDbTestServer(command, directory, port);
            started.start();
            Runtime.getRuntime().addShutdownHook(new Thread(started::destroy, "mariadb-test-server-stop"));
            log.info("MariaDB test server from {} on 127.0.0.1:{} in {}", server.get(), port, directory);
            return Optional.of(started);
        }
        catch (IOException | RuntimeException ex) {
            throw new IllegalStateException("The MariaDB binaries are there but no test server could be started", ex);
        }
    }

    /** @return why {@link #startNew()} found no server */
    static String missing() {
        return missing;
    }

    /** @param environment the variables for the server's process, asked for at each start from the next on */
    void environment(Supplier<Map<String, String>> environment) {
        this.environment = environment;
    }

    /** Starts the server (again, after {@link #stop()}: same port, same data) and waits until it answers. */
    synchronized void start() {
        try {
            ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.appendTo(directory.resolve("server.log").toFile()));
            builder.environment().putAll(environment.get());
            process = builder.start();
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not start mariadbd", ex);
        }
        await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).ignoreExceptions()
                .until(() -> {
                    try (Connection connection = DriverManager.getConnection(url(""));
                            Statement statement = connection.createStatement()) {
                        statement.execute("CREATE DATABASE IF NOT EXISTS distlock");
                        return true;
                    }
                });
    }

    /** Stops the server cleanly (its connections fail until {@link #start()}). */
    synchronized void stop() {
        process.destroy();
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
    }

    /** Kills the server with SIGKILL, as a crash would (InnoDB recovers from its redo log at the next start). */
    synchronized void kill() {
        try {
            process.destroyForcibly().waitFor();
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }

    /** Freezes the server (SIGSTOP): its connections stay open and nothing answers until {@link #resume()}. */
    synchronized void pause() {
        ProcessSignals.freeze(process.pid());
    }

    /** Thaws a server frozen by {@link #pause()}. */
    synchronized void resume() {
        ProcessSignals.thaw(process.pid());
    }

    /** @return whether the server process runs (it may be frozen) */
    synchronized boolean isRunning() {
        return process != null && process.isAlive();
    }

    /** @return the port it listens on */
    int port() {
        return port;
    }

    /** @return the server's version, as it reports it */
    String version() {
        try (Connection connection = admin()) {
            return connection.getMetaData().getDatabaseProductVersion();
        }
        catch (SQLException ex) {
            return "(version unknown)";
        }
    }

    private static void run(Path directory, List<String> command) throws IOException {
        File log = directory.resolve("install.log").toFile();
        ProcessBuilder builder = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log);
        builder.environment().put("TMPDIR", directory.resolve("tmp").toString());
        Process install = builder.start();
        try {
            if (!install.waitFor(2, TimeUnit.MINUTES) || install.exitValue() != 0) {
                install.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed, see " + log);
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }

    private static boolean isRoot() throws IOException {
        return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    }

    /** @return the JDBC URL of the tests' database for MariaDB Connector/J */
    String url() {
        return url(MariaDbDriver.MARIADB);
    }

    /**
     * @param driver the JDBC driver that is to serve the URL
     * @return the JDBC URL of the tests' database for that driver
     */
    String url(MariaDbDriver driver) {
        return url(driver, "distlock");
    }

    private String url(String database) {
        return url(MariaDbDriver.MARIADB, database);
    }

    private String url(MariaDbDriver driver, String database) {
        return "jdbc:" + driver.scheme() + "://127.0.0.1:" + port + "/" + database + "?user=root";
    }

    /** @return a new connection outside every node, for setting up and checking */
    Connection admin() throws SQLException {
        return DriverManager.getConnection(url());
    }

    /**
     * @param poolSize the pool size
     * @return a pool of its own
     */
    HikariDataSource pool(int poolSize) {
        return pool(poolSize, MariaDbDriver.MARIADB, null);
    }

    /**
     * @param poolSize the pool size
     * @param driver the JDBC driver of its connections
     * @param isolation the connections' transaction isolation (a {@code TRANSACTION_*} name of
     *        {@link Connection}), or null for the server's ({@code REPEATABLE READ})
     * @return a pool of its own
     */
    HikariDataSource pool(int poolSize, MariaDbDriver driver, @Nullable String isolation) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url(driver));
        config.setTransactionIsolation(isolation);
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(0);
        return new HikariDataSource(config);
    }

    /** Stops the server for good and deletes its directory. */
    synchronized void destroy() {
        if (process == null || !Files.exists(directory)) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(20, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
            try (Stream<Path> files = Files.walk(directory)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
        catch (InterruptedException | IOException ex) {
            process.destroyForcibly();
        }
    }
}
