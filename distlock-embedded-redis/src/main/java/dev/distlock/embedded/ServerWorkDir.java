package dev.distlock.embedded;

import java.io.File;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * The work directory of one {@link RedisServerProcess}: its config file, its log, and whatever the server writes
 * there ({@code dump.rdb}, the AOF, a cluster node's {@code nodes.conf}). Created once and kept across restarts, so
 * that a restarted server finds its data and the configuration it rewrote; deleted when the JVM exits
 * ({@link ExitCleanup}).
 */
final class ServerWorkDir {

    private final Path dir;

    private final Path configFile;

    private ServerWorkDir(Path dir, Path configFile) {
        this.dir = dir;
        this.configFile = configFile;
    }

    /**
     * Creates a temporary directory and writes the config file into it. The file exists even when empty, because
     * {@code CONFIG REWRITE}, which Sentinel sends to the servers it reconfigures, needs one to rewrite.
     *
     * @param port the server's port, for a recognisable directory name
     * @param sentinel true for a Sentinel, whose file is {@code sentinel.conf}
     * @param config the file's text; null for an empty file
     * @return the new directory
     */
    static ServerWorkDir create(int port, boolean sentinel, @Nullable String config) {
        try {
            Path dir = Files.createTempDirectory("distlock-redis-" + port + "-");
            ExitCleanup.deleteAtExit(dir);
            Path configFile = dir.resolve(sentinel ? "sentinel.conf" : "redis.conf");
            Files.writeString(configFile, config == null ? "" : config);
            return new ServerWorkDir(dir, configFile);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** @return the directory */
    Path dir() {
        return dir;
    }

    /** @return the config file, the first argument of {@code redis-server} */
    Path configFile() {
        return configFile;
    }

    /** @return the log every run appends its output to */
    File logFile() {
        return dir.resolve("redis.log").toFile();
    }

    /**
     * @param lines how many lines
     * @return the last lines of the log, or a note that there is no log
     */
    String logTail(int lines) {
        try {
            List<String> all = Files.readAllLines(logFile().toPath());
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        }
        catch (IOException | UncheckedIOException ex) {
            return "(no log)";
        }
    }
}
