package dev.distlock.benchmarks;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.UserPrincipalLookupService;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.distlock.embedded.RedisServerProcess;

/**
 * A PostgreSQL server for workload S, made the way distlock-jdbc's tests make theirs ({@code PostgresTestServer}):
 * from the binaries installed on the machine (Debian's {@code /usr/lib/postgresql/<version>/bin}, or
 * {@code DISTLOCK_PG_BIN}), {@code initdb} into a temporary directory and {@code pg_ctl start} on a free loopback
 * port; as root it runs as the {@code postgres} user. Unlike the tests' server it keeps PostgreSQL's durability
 * defaults ({@code fsync}, {@code synchronous_commit}), since what a commit costs is what is measured.
 */
final class PostgresServer implements AutoCloseable {

    private final Path binaries;

    private final Path directory;

    private final int port;

    private final List<String> runAs;

    private PostgresServer(Path binaries, Path directory, int port, List<String> runAs) {
        this.binaries = binaries;
        this.directory = directory;
        this.port = port;
        this.runAs = runAs;
    }

    /** @return a started server, or empty (with a message why) when this machine has no PostgreSQL binaries */
    static Optional<PostgresServer> start() throws IOException {
        Optional<Path> binaries = findBinaries();
        if (binaries.isEmpty()) {
            System.err.println("  PostgreSQL SKIPPED: no PostgreSQL server binaries (initdb, pg_ctl, postgres) on "
                    + "this machine; install Debian's postgresql package or set DISTLOCK_PG_BIN to their directory");
            return Optional.empty();
        }
        Path directory = Files.createTempDirectory("distlock-bench-pg");
        List<String> runAs = List.of();
        if (Integer.valueOf(0).equals(Files.getAttribute(Path.of("/proc/self"), "unix:uid"))) {
            // PostgreSQL refuses to run as root.
            String user = userExists("postgres") ? "postgres" : "nobody";
            UserPrincipalLookupService users = directory.getFileSystem().getUserPrincipalLookupService();
            Files.setOwner(directory, users.lookupPrincipalByName(user));
            runAs = List.of("runuser", "-u", user, "--");
        }
        PostgresServer server = new PostgresServer(binaries.get(), directory, RedisServerProcess.freePort(), runAs);
        // --no-sync only skips flushing the fresh cluster once; the running server keeps fsync on.
        server.run("initdb", "-D", server.data(), "-U", "postgres", "-A", "trust", "-E", "UTF8", "--locale=C",
                "--no-sync");
        server.run("pg_ctl", "-D", server.data(), "-l", directory.resolve("server.log").toString(), "-w", "-t", "60",
                "-o", "-p " + server.port + " -k " + directory + " -c listen_addresses=127.0.0.1"
                        + " -c max_connections=200",
                "start");
        return Optional.of(server);
    }

    private static Optional<Path> findBinaries() {
        String configured = System.getenv("DISTLOCK_PG_BIN");
        if (configured != null && !configured.isBlank()) {
            return Optional.of(Path.of(configured)).filter(PostgresServer::hasBinaries);
        }
        Path debian = Path.of("/usr/lib/postgresql");
        if (Files.isDirectory(debian)) {
            try (Stream<Path> versions = Files.list(debian)) {
                Optional<Path> newest = versions.map(version -> version.resolve("bin"))
                        .filter(PostgresServer::hasBinaries)
                        .max(Comparator.comparingInt(bin -> major(bin.getParent().getFileName().toString())));
                if (newest.isPresent()) {
                    return newest;
                }
            }
            catch (IOException ex) {
                // fall through to PATH
            }
        }
        return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator)).map(Path::of)
                .filter(PostgresServer::hasBinaries).findFirst();
    }

    private static int major(String version) {
        try {
            return Integer.parseInt(version.replaceAll("\\..*", ""));
        }
        catch (NumberFormatException ex) {
            return 0;
        }
    }

    private static boolean hasBinaries(Path bin) {
        return Stream.of("initdb", "pg_ctl", "postgres").allMatch(name -> Files.isExecutable(bin.resolve(name)));
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
    String url() {
        return "jdbc:postgresql://127.0.0.1:" + port + "/postgres?user=postgres";
    }

    /** @return the binaries' directory */
    Path binaries() {
        return binaries;
    }

    /** @return the server's version, from {@code postgres --version} */
    String version() {
        return run("postgres", "--version").trim().replaceAll("^.*\\) ", "");
    }

    /** @return the major version, e.g. {@code 15} */
    int majorVersion() {
        return major(version());
    }

    @Override
    public void close() {
        try {
            run("pg_ctl", "-D", data(), "-m", "immediate", "-w", "stop");
        }
        finally {
            try (Stream<Path> files = Files.walk(directory)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
            catch (IOException ex) {
                // A temporary directory: the system cleans it up.
            }
        }
    }

    private String run(String binary, String... args) {
        List<String> command = new ArrayList<>(runAs);
        command.add(binaries.resolve(binary).toString());
        command.addAll(List.of(args));
        try {
            Process process = new ProcessBuilder(command).directory(directory.toFile()).redirectErrorStream(true)
                    .start();
            // pg_ctl's server inherits no pipe of ours (it logs to server.log), so reading to the end terminates.
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!process.waitFor(2, TimeUnit.MINUTES) || process.exitValue() != 0) {
                process.destroyForcibly();
                throw new IllegalStateException(String.join(" ", command) + " failed:\n" + output);
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
}
