package dev.distlock.sample;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.distlock.embedded.LoopbackPorts;
import org.awaitility.core.ConditionTimeoutException;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample as a developer starts and stops it: its own JVM, its own embedded Redis (started by the sample's
 * launcher on a free port), stopped with SIGTERM as {@code kill} or an IDE does, or by a signal to its whole process
 * group, as Ctrl-C in its terminal sends one (SIGINT to the foreground group, the embedded Redis's too unless it runs
 * in a session of its own). The start-up log says where the page is and which store it uses; the stop is clean: the
 * embedded Redis stops only after distlock has released what it held (no unconfirmed release, no client
 * reconnecting to a Redis that is gone), and the JVM exits with 0, so that {@code ./mvnw spring-boot:run} does not
 * end in BUILD FAILURE.
 */
class SampleLifecycleTests {

    private static final Path SETSID = Path.of("/usr/bin/setsid");

    @TempDir
    Path dir;

    /**
     * Stopped by SIGTERM to its whole process group, as Ctrl-C in its terminal reaches the whole foreground group:
     * the group's other members, the embedded Redis among them unless it has a session of its own, get it too.
     * SIGTERM stands in for Ctrl-C's SIGINT, which a job started in the background (as a CI run may be) inherits
     * ignored, and the JVM then keeps ignoring. Without {@code setsid} to give the sample a group of its own, the
     * JVM alone gets the SIGTERM (as from {@code kill} or an IDE).
     */
    @Test
    void startUpPrintsThePageAndASignalToItsProcessGroupReleasesLocksBeforeTheEmbeddedRedisStops() throws Exception {
        boolean ownGroup = Files.isExecutable(SETSID);
        int redisPort = LoopbackPorts.free();
        Path log = dir.resolve("sample.log");
        // With setsid, a process group of its own that it leads (its pid is the group's id), as a shell's job has.
        Process sample = start(ownGroup ? List.of(SETSID.toString()) : List.of(), redisPort, log);
        try {
            String started = awaitStarted(sample, log);
            assertThat(started).contains("Started an embedded Redis on 127.0.0.1:" + redisPort)
                    .containsPattern("Sample page: http://localhost:\\d+/ \\(lock store: redis, RedisLockStore\\[");

            if (ownGroup) {
                // Whether the group's signal would reach Redis first is a race; where Redis runs is not.
                assertThat(processGroupOf(redisPort)).as("the embedded Redis's process group")
                        .isNotEqualTo(sample.pid());
                int kill = new ProcessBuilder("kill", "-TERM", "--", "-" + sample.pid()).inheritIO().start()
                        .waitFor();
                assertThat(kill).as("kill -TERM to the sample's process group").isZero();
            }
            else {
                sample.destroy(); // SIGTERM
            }

            assertThat(sample.waitFor(60, TimeUnit.SECONDS)).isTrue();
            assertThat(sample.exitValue()).isZero();
            assertStoppedCleanly(read(log).substring(started.length()), redisPort);
        }
        finally {
            sample.destroyForcibly();
        }
    }

    private Process start(List<String> prefix, int redisPort, Path log) throws IOException {
        List<String> command = new ArrayList<>(prefix);
        command.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
                SampleApplication.class.getName(), "--server.port=0", "--spring.main.banner-mode=off",
                "--spring.data.redis.port=" + redisPort, "--sample.data-dir=" + dir, "--sample.daily-report.cron=-"));
        return new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    /** @return the log once the sample has started and leads (it then holds a lease in Redis) */
    private static String awaitStarted(Process sample, Path log) throws IOException {
        // Held at shutdown: the leadership of order-consumer (distlock.leader.groups), a lease in Redis.
        try {
            await().atMost(Duration.ofSeconds(90)).until(() -> read(log).contains("leads 'order-consumer'")
                    && read(log).contains("Sample page: http://localhost:") || !sample.isAlive());
        }
        catch (ConditionTimeoutException ex) {
            throw new AssertionError("The sample did not start:\n" + read(log), ex);
        }
        assertThat(sample.isAlive()).as("started, in:%n%s", read(log)).isTrue();
        return read(log);
    }

    private static void assertStoppedCleanly(String shutdown, int redisPort) {
        assertThat(shutdown).contains("gives up the leadership of 'order-consumer'")
                .contains("Stopping the embedded Redis on 127.0.0.1:" + redisPort)
                .doesNotContain("not confirmed").doesNotContain("Cannot reconnect")
                // Nothing from distlock or the Redis client (H2's own exit hook may still race the demo's
                // timeline writer: not what this is about).
                .doesNotContainPattern("(?m)^\\S+\\s+(WARN|ERROR) .* (dev\\.distlock\\.(core|redis)|i\\.l\\.core|io\\.lettuce)");
        assertThat(shutdown.indexOf("Stopping the embedded Redis"))
                .isGreaterThan(shutdown.indexOf("gives up the leadership"));
        assertThat(LoopbackPorts.isListening(redisPort)).isFalse();
    }

    /** @return the process group of the redis-server listening on the port ({@code /proc}: its title names it) */
    private static long processGroupOf(int redisPort) throws IOException {
        try (Stream<Path> processes = Files.list(Path.of("/proc"))) {
            for (Path process : processes.filter(p -> p.getFileName().toString().matches("\\d+")).toList()) {
                try {
                    String title = Files.readString(process.resolve("cmdline")).replace('\0', ' ');
                    if (title.contains("redis-server") && title.contains("127.0.0.1:" + redisPort)) {
                        String stat = Files.readString(process.resolve("stat"));
                        return Long.parseLong(stat.substring(stat.lastIndexOf(')') + 2).split(" ")[2]);
                    }
                }
                catch (IOException ex) {
                    // the process ended meanwhile
                }
            }
        }
        throw new AssertionError("no redis-server on port " + redisPort + " in /proc");
    }

    private static String read(Path log) throws IOException {
        return Files.readString(log, StandardCharsets.UTF_8);
    }
}
