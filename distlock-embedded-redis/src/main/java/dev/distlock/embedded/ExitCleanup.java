package dev.distlock.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;

/**
 * What the JVM's exit cleans up, so that a failed or interrupted test run leaves no server behind: every
 * {@link RedisServerProcess} still running is killed, and the work directories are deleted unless
 * {@value RedisServerProcess#KEEP_WORK_DIRS} is {@code true}.
 */
final class ExitCleanup {

    private static final Set<ServerLifecycle> RUNNING = ConcurrentHashMap.newKeySet();

    private static final Set<Path> WORK_DIRS = ConcurrentHashMap.newKeySet();

    static {
        Runtime.getRuntime().addShutdownHook(new Thread(ExitCleanup::cleanUp, "distlock-redis-cleanup"));
    }

    private ExitCleanup() {
    }

    /** @param server a server whose process was just started: killed at exit unless stopped before */
    static void running(ServerLifecycle server) {
        RUNNING.add(server);
    }

    /** @param server a server whose process is gone: nothing to kill at exit */
    static void stopped(ServerLifecycle server) {
        RUNNING.remove(server);
    }

    /** @param dir a work directory, deleted at exit */
    static void deleteAtExit(Path dir) {
        WORK_DIRS.add(dir);
    }

    private static void cleanUp() {
        long start = System.nanoTime();
        for (ServerLifecycle server : List.copyOf(RUNNING)) {
            // The owner's own shutdown (another hook, running now) stops it; wait for that, bounded.
            while (RUNNING.contains(server) && System.nanoTime() - start < server.exitGrace().toNanos()) {
                try {
                    Thread.sleep(20);
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    break;
                }
            }
        }
        RUNNING.forEach(ServerLifecycle::kill);
        String keep = System.getProperty(RedisServerProcess.KEEP_WORK_DIRS,
                System.getenv(RedisServerProcess.KEEP_WORK_DIRS));
        if (Boolean.parseBoolean(keep)) {
            WORK_DIRS.forEach(dir -> System.err.println("kept redis work directory " + dir));
            return;
        }
        for (Path dir : WORK_DIRS) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
            catch (IOException | UncheckedIOException ex) {
                // best effort: a leftover temp directory is harmless
            }
        }
    }
}
