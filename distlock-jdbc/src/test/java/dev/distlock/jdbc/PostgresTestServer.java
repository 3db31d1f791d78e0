package dev.distlock.jdbc;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.embedded.LoopbackPorts;
import org.junit.jupiter.api.Assumptions;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real PostgreSQL server for the tests, made from the binaries installed on the machine (Debian's
 * {@code postgresql} package: {@code /usr/lib/postgresql/<version>/bin}, or {@code DISTLOCK_PG_BIN}) in a temporary
 * directory on a free loopback port: {@code initdb}, then {@code pg_ctl start}. One server per test JVM, shared by
 * the test classes (each uses tables of its own) and stopped by a shutdown hook. As root (CI) it runs as the
 * {@code postgres} user, since PostgreSQL refuses to run as root.
 * <p>
 * Where the binaries are missing, {@link #shared()} skips the calling tests with a visible reason (a JUnit
 * assumption, and a WARN line) instead of failing or passing silently.
 * <p>
 * The benchmarks (workload S of {@code distlock-benchmarks}, through this module's test jar) start one of their own
 * with {@link #startNew(boolean) durable} settings, since what a commit costs is what they measure.
 */
public final class PostgresTestServer implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(PostgresTestServer.class);

    private static Optional<PostgresTestServer> shared;

    private static String missing = "";

    private final Path binaries;

    private final Path directory;

    private final int port;

    private final List<String> runAs;

    private final boolean durable;

    /** Added to the environment of the commands it runs, and so of the server {@code pg_ctl start} starts. */
    private volatile Map<String, String> environment = Map.of();

    private PostgresTestServer(Path binaries, Path directory, int port, List<String> runAs, boolean durable) {
        this.binaries = binaries;
        this.directory = directory;
        this.port = port;
        this.runAs = runAs;
        this.durable = durable;
    }

    /**
     * @return the server of this JVM, started on first use
     * @throws org.opentest4j.TestAbortedException when this machine has no PostgreSQL binaries (the test is skipped)
     */
    static synchronized PostgresTestServer shared() {
        if (shared == null) {
            shared = startNew(false);
        }
        Assumptions.assumeTrue(shared.isPresent(), () -> missing);
        return shared.get();
    }

    /**
     * Starts a server of the caller's own; it is stopped by {@link #close()} or, at the latest, when the JVM exits.
     *
     * @param durable whether to keep PostgreSQL's durability defaults ({@code fsync}, {@code full_page_writes}); the
     *        tests turn them off, since they test locking, not the disk
     * @return the server, or empty (after a WARN saying why) when this machine has no PostgreSQL binaries
     */
    public static Optional<PostgresTestServer> startNew(boolean durable) {
        Optional<Path> binaries = findBinaries();
        if (binaries.isEmpty()) {
            missing = "PostgreSQL tests SKIPPED: no PostgreSQL server binaries (initdb, pg_ctl, postgres) on this "
                    + "machine; install Debian's postgresql package or set DISTLOCK_PG_BIN to their directory";
            log.warn(missing);
            return Optional.empty();
        }
        try {
            Path directory = Files.createTempDirectory("distlock-pg");
            List<String> runAs = List.of();
            if (isRoot()) {
                String user = userExists("postgres") ? "postgres" : "nobody";
                UserPrincipalLookupService users = directory.getFileSystem().getUserPrincipalLookupService();
                Files.setOwner(directory, users.lookupPrincipalByName(user));
                runAs = List.of("runuser", "-u", user, "--");
            }
            PostgresTestServer server = new PostgresTestServer(binaries.get(), directory, LoopbackPorts.free(),
                    runAs, durable);
            server.run(Duration.ofMinutes(2), "initdb", "-D", server.data(), "-U", "postgres", "-A", "trust",
                    "-E", "UTF8", "--locale=C", "--no-sync");
            server.start();
            Runtime.getRuntime().addShutdownHook(new Thread(server::destroy, "postgres-test-server-stop"));
            log.info("PostgreSQL test server from {} on 127.0.0.1:{} in {}", binaries.get(), server.port, directory);
            return Optional.of(server);
        }
        catch (IOException | RuntimeException ex) {
            throw new IllegalStateException("The PostgreSQL binaries in " + binaries.get() + " are there but no test "
                    + "server could be started", ex);
        }
    }

    private static Optional<Path> findBinaries() {
        String configured = System.getenv("DISTLOCK_PG_BIN");
        if (configured != null && !configured.isBlank()) {
            return Optional.of(Path.of(configured)).filter(PostgresTestServer::hasBinaries);
        }
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                Optional<Path> newest = versions.map(version -> version.resolve("bin"))
                        .filter(PostgresTestServer::hasBinaries)
                        .max(Comparator.comparingInt(bin -> versionOf(bin.getParent().getFileName().toString())));
                if (newest.isPresent()) {
                    return newest;
                }
            }
            catch (IOException ex) {
                log.debug("Cannot list {}", debian, ex);
            }
        }
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)).map(Path::of)
                .filter(PostgresTestServer::hasBinaries).findFirst();
    }

    private static int versionOf(String name) {
        try {
            return Integer.parseInt(name.replaceAll("\\..*", ""));
        }
        catch (NumberFormatException ex) {
            return 0;
        }
    }

    private static boolean hasBinaries(Path bin) {
        return Stream.of("initdb", "pg_ctl", "postgres").allMatch(name -> Files.isExecutable(bin.resolve(name)));
    }

    private static boolean isRoot() throws IOException {
        return Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"));
    }

    private static boolean userExists(String user) {
        try {
            return new ProcessBuilder("id", "-u", user).start().waitFor() == 0;
        }
        catch (IOException ex) {
            return false;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private String data() {
        return directory.resolve("data").toString();
    }

    /** @return the JDBC URL of the {@code postgres} database */
    public String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /** @param environment variables for the server's process from its next start on (e.g. a faked clock) */
    void environment(Map<String, String> environment) {
        this.environment = Map.copyOf(environment);
    }

    /** Starts (or restarts) the server and waits until it accepts connections. */
    synchronized void start() {
        run(Duration.ofMinutes(1), "pg_ctl", "-D", data(), "-l", directory.resolve("server.log").toString(), "-w",
                "-t", "60", "-o", "-p " + port + " -k " + directory + " -c listen_addresses=127.0.0.1"
                        + (durable ? "" : " -c fsync=off -c full_page_writes=off") + " -c max_connections=200",
                "start");
    }

    /**
     * Stops the server: every connection breaks, new ones are refused. Committed data stays (as after a crash with
     * {@code immediate}: the write-ahead log is replayed at the next start).
     *
     * @param mode {@code fast} (a clean shutdown) or {@code immediate} (as a crash)
     */
    synchronized void stop(String mode) {
        run(Duration.ofMinutes(1), "pg_ctl", "-D", data(), "-m", mode, "-w", "stop");
    }

    /** @return a new connection of its own, for setting up and checking */
    Connection admin() throws SQLException {
        return DriverManager.getConnection(url());
    }

    /**
     * @param poolSize the pool size
     * @return a pool of its own (one node's connections), with Hikari's default 30 s connection timeout so that
     *         only the store bounds its calls
     */
    HikariDataSource pool(int poolSize) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url());
        config.setMaximumPoolSize(poolSize);
        config.setMinimumIdle(0);
        config.setInitializationFailTimeout(-1);
        return new HikariDataSource(config);
    }

    /** @return the directory of the binaries it runs */
    public Path binaries() {
        return binaries;
    }

    /** @return the server's version, from {@code postgres --version}, e.g. {@code 15.8} */
    public String version() {
        return run(Duration.ofMinutes(1), "postgres", "--version").trim().replaceAll("^.*\\) ", "");
    }

    /** Stops the server at once and deletes its directory. */
    @Override
    public void close() {
        destroy();
    }

    private void destroy() {
        try {
            stop("immediate");
        }
        catch (RuntimeException ex) {
            // Already stopped.
        }
        try (Stream<Path> files = Files.walk(directory)) {
            files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
        }
        catch (IOException ex) {
            // A temporary directory: the system cleans it up.
        }
    }

    private String run(Duration timeout, String binary, String... args) {
        List<String> command = new ArrayList<>(runAs);
        if (!runAs.isEmpty() && !environment.isEmpty()) {
            // Set after runuser, so that only commands run as the server's user load libfaketime. runuser (root)
            // would make a semaphore of root's only (/dev/shm/sem.faketime_sem_<pid>, mode 600) and pass its name
            // on; pg_ctl may not open it and makes one of its own, unless a dead process left one of its PID: then
            // libfaketime ends pg_ctl ("sem_open failed and recreation attempts failed").
            command.add("env");
            environment.forEach((name, value) -> command.add(name + "=" + value));
        }
        command.add(binaries.resolve(binary).toString());
        command.addAll(List.of(args));
        try {
            ProcessBuilder builder = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true);
            if (runAs.isEmpty()) {
                builder.environment().putAll(environment);
            }
            Process process = builder.start();
            // pg_ctl's server inherits no pipe of ours (it logs to server.log), so reading to the end terminates.
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(timeout.toMillis(), TimeUnit.MILLISECONDS) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output + serverLog());
            }
            return output;
        }
        catch (IOException ex) {
            throw new IllegalStateException("Could not run " + command, ex);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("Interrupted running " + command, ex);
        }
    }

    private String serverLog() {
        try {
            return Files.readString(directory.resolve("server.log"));
        }
        catch (IOException ex) {
            return "";
        }
    }
}
