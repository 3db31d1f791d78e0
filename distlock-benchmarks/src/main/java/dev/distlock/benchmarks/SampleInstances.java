package dev.distlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import dev.distlock.embedded.LoopbackPorts;

/**
 * The sample app's instances of workload K: {@code java -jar sample-app.jar} processes on free loopback ports, all on
 * the run's Redis ({@code sample.embedded-redis=false}: the harness's server, never one of their own) and one H2
 * database in a temporary directory (the first instance serves it to the others, as in {@code flash-sale.sh}).
 * Every process is stopped at {@link #close()}, also when the start fails, and killed by a shutdown hook if the
 * harness exits first.
 */
final class SampleInstances implements AutoCloseable {

    /** A Boot application on 2 busy cores can take a minute to start; three at once longer. */
    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

    private final Path dir;

    private final List<Instance> instances = new ArrayList<>();

    /**
     * One started instance.
     *
     * @param process the JVM
     * @param baseUrl {@code http://127.0.0.1:<port>}
     * @param log its standard output and error
     */
    record Instance(Process process, String baseUrl, Path log) {
    }

    private SampleInstances(Path dir) {
        this.dir = dir;
    }

    /**
     * Starts the instances and waits until each answers its health check and all see each other as live.
     *
     * @param jar the sample's executable jar
     * @param count how many instances
     * @param redis the run's Redis
     * @return the running instances
     * @throws Exception when one does not start; every process started so far is stopped
     */
    static SampleInstances start(Path jar, int count, RedisTarget redis) throws Exception {
        SampleInstances started = new SampleInstances(Files.createTempDirectory("distlock-bench-sample"));
        try {
            // The first instance creates and serves the H2 database (AUTO_SERVER): the others join once it is up.
            started.launch(jar, redis, 0);
            SampleClient first = new SampleClient(started.instances.get(0).baseUrl());
            started.awaitHealthy(started.instances.get(0), first);
            for (int i = 1; i < count; i++) {
                started.launch(jar, redis, i);
            }
            for (int i = 1; i < count; i++) {
                Instance instance = started.instances.get(i);
                started.awaitHealthy(instance, new SampleClient(instance.baseUrl()));
            }
            started.awaitAllLive(first, count);
            return started;
        }
        catch (Exception | Error ex) {
            started.close();
            throw ex;
        }
    }

    /** @return the instances, in start order */
    List<Instance> instances() {
        return instances;
    }

    private void launch(Path jar, RedisTarget redis, int index) throws IOException {
        int port = LoopbackPorts.free();
        Path log = dir.resolve("instance-" + index + ".log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        // Full JIT (no TieredStopAtLevel=1 as in flash-sale.sh, which only speeds up the start): the sale is measured.
        Process process = new ProcessBuilder(java, "-Xmx256m", "-XX:+UseSerialGC", "-jar", jar.toString(),
                "--server.port=" + port, "--spring.data.redis.host=" + redis.host(),
                "--spring.data.redis.port=" + redis.port(), "--sample.embedded-redis=false",
                "--sample.data-dir=" + dir.resolve("data"), "--distlock.store=redis", "--distlock.enabled=true",
                "--sample.daily-report.cron=-")
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        ChildJvms.started(process);
        instances.add(new Instance(process, "http://127.0.0.1:" + port, log));
    }

    private void awaitHealthy(Instance instance, SampleClient client) throws Exception {
        long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
        while (!client.healthy()) {
            if (!instance.process().isAlive()) {
                throw new IllegalStateException("Sample instance " + instance.baseUrl() + " exited with "
                        + instance.process().exitValue() + "; its log ends with:\n" + tail(instance.log()));
            }
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("Sample instance " + instance.baseUrl() + " not healthy after "
                        + START_TIMEOUT + "; its log ends with:\n" + tail(instance.log()));
            }
            Thread.sleep(250);
        }
    }

    /** The flash sale sends buyers to the instances the shared database lists as live: wait until all are. */
    private void awaitAllLive(SampleClient client, int count) throws Exception {
        long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
        int live;
        while ((live = client.liveInstances()) < count) {
            if (System.nanoTime() - deadline > 0) {
                throw new IllegalStateException("Only " + live + " of " + count
                        + " sample instances registered as live within 30 s");
            }
            Thread.sleep(250);
        }
    }

    private static String tail(Path log) {
        try {
            List<String> lines = Files.readAllLines(log);
            return String.join("\n", lines.subList(Math.max(0, lines.size() - 30), lines.size()));
        }
        catch (IOException ex) {
            return "(unreadable: " + ex.getMessage() + ")";
        }
    }

    /**
     * Stops the instances newest first (the first one serves the database to the others), each with SIGTERM and
     * 20 s to shut down gracefully before it is killed; then deletes the temporary directory.
     */
    @Override
    public void close() {
        for (int i = instances.size() - 1; i >= 0; i--) {
            Process process = instances.get(i).process();
            process.destroy();
            try {
                if (!process.waitFor(20, TimeUnit.SECONDS)) {
                    process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
                }
            }
            catch (InterruptedException ex) {
                process.destroyForcibly();
                Thread.currentThread().interrupt();
            }
            ChildJvms.stopped(process);
        }
        try (Stream<Path> files = Files.walk(dir)) {
            for (Path file : files.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(file);
            }
        }
        catch (IOException ex) {
            // temporary files only
        }
    }
}
