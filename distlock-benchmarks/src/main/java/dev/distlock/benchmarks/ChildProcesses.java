package dev.distlock.benchmarks;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * Starts the child JVMs of one B2 or G measurement ({@code java -cp <the harness's class path> ChildMain ...}),
 * starts their threads at one moment, and collects their {@link ChildResult}s. Every child is killed at the end,
 * also when the measurement fails or the harness exits.
 */
final class ChildProcesses implements AutoCloseable {

    private static final Duration START_TIMEOUT = Duration.ofMinutes(3);

    private final Path dir;

    private final List<Child> children = new ArrayList<>();

    private long warmUpFailures;

    private String firstWarmUpFailure = "";

    private record Child(Process process, BlockingQueue<String> lines, Path result, Path stderr) {
    }

    /**
     * Starts the children; each connects one client and reports ready.
     *
     * @param contenderId the contender's id (as in {@code --contenders})
     * @param target the Redis server
     * @param lockName the one lock name they all use
     * @param jvms how many child JVMs
     * @param threads threads per child
     * @param work busy work inside the lock
     * @throws IOException when a child cannot be started
     */
    ChildProcesses(String contenderId, RedisTarget target, String lockName, int jvms, int threads, Duration work)
            throws IOException {
        dir = Files.createTempDirectory("distlock-bench-children");
        Path shared = dir.resolve("shared");
        SharedSlots.create(shared).close();
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        try {
            for (int i = 0; i < jvms; i++) {
                Path result = dir.resolve("result-" + i);
                Path stderr = dir.resolve("stderr-" + i);
                Process process = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                        ChildMain.class.getName(), contenderId, target.toString(), lockName, String.valueOf(i),
                        String.valueOf(threads), String.valueOf(work.toNanos()), shared.toString(),
                        result.toString()).redirectError(stderr.toFile()).start();
                ChildJvms.started(process);
                BlockingQueue<String> lines = new LinkedBlockingQueue<>();
                Thread reader = new Thread(() -> readLines(process, lines), "child-stdout-" + i);
                reader.setDaemon(true);
                reader.start();
                children.add(new Child(process, lines, result, stderr));
            }
        }
        catch (IOException | RuntimeException ex) {
            close();
            throw ex;
        }
    }

    private static void readLines(Process process, BlockingQueue<String> lines) {
        try (BufferedReader in = new BufferedReader(
                new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                lines.add(line);
            }
        }
        catch (IOException ex) {
            // the child is gone
        }
        lines.add("EOF");
    }

    /**
     * Waits until every child is ready, starts all of them 200 ms later (each child's clock is read from its
     * READY line, so no shared clock is assumed), and collects their results.
     *
     * @param warmup the warm-up before the measured window
     * @param measure the measured window
     * @return one result per child
     * @throws Exception when a child fails or times out
     */
    List<ChildResult> run(Duration warmup, Duration measure) throws Exception {
        long[] offsets = new long[children.size()];
        for (int i = 0; i < children.size(); i++) {
            String ready = await(children.get(i), "READY", START_TIMEOUT);
            String[] parts = ready.split(" ", 4);
            offsets[i] = Long.parseLong(parts[1]) - System.nanoTime();
            long failed = parts.length > 2 ? Long.parseLong(parts[2]) : 0;
            if (failed > 0) {
                warmUpFailures += failed;
                firstWarmUpFailure = firstWarmUpFailure.isEmpty() && parts.length > 3 ? parts[3] : firstWarmUpFailure;
            }
        }
        long start = System.nanoTime() + 200_000_000L;
        long from = start + warmup.toNanos();
        long to = from + measure.toNanos();
        for (int i = 0; i < children.size(); i++) {
            OutputStream in = children.get(i).process().getOutputStream();
            in.write(("GO " + (start + offsets[i]) + " " + (from + offsets[i]) + " " + (to + offsets[i]) + "\n")
                    .getBytes(StandardCharsets.UTF_8));
            in.flush();
        }
        List<ChildResult> results = new ArrayList<>();
        Duration finish = warmup.plus(measure).plusMinutes(2);
        for (Child child : children) {
            await(child, "DONE", finish);
            results.add(ChildResult.read(child.result()));
        }
        return results;
    }

    /** @return lock calls that failed while the children warmed up (before READY), and the first failure */
    String warmUpFailures() {
        return warmUpFailures == 0 ? "" : warmUpFailures + " failed warm-up calls, first: " + firstWarmUpFailure;
    }

    long warmUpFailureCount() {
        return warmUpFailures;
    }

    private String await(Child child, String prefix, Duration timeout) throws Exception {
        long deadline = System.nanoTime() + timeout.toNanos();
        while (true) {
            String line = child.lines().poll(Math.max(1, deadline - System.nanoTime()), TimeUnit.NANOSECONDS);
            if (line == null || line.equals("EOF")) {
                throw new IllegalStateException("child " + child.process().pid() + (line == null
                        ? " did not say " + prefix + " within " + timeout : " exited before " + prefix)
                        + "; its stderr says:\n" + tail(child.stderr()));
            }
            if (line.startsWith(prefix)) {
                return line;
            }
        }
    }

    private static String tail(Path file) {
        try {
            // The first lines name the failure; the last ones show where the child stopped.
            List<String> lines = Files.readAllLines(file);
            if (lines.size() <= 40) {
                return String.join("\n", lines);
            }
            return String.join("\n", lines.subList(0, 25)) + "\n...\n"
                    + String.join("\n", lines.subList(lines.size() - 10, lines.size()));
        }
        catch (IOException ex) {
            return "(unreadable)";
        }
    }

    /** Lets children that reported DONE exit, then kills whatever is left and deletes the files. */
    @Override
    public void close() {
        for (Child child : children) {
            try {
                child.process().getOutputStream().close(); // a child halts when its stdin closes
            }
            catch (IOException ex) {
                // already gone
            }
        }
        for (Child child : children) {
            Process process = child.process();
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
        try (var files = Files.list(dir)) {
            for (Path file : files.toList()) {
                Files.deleteIfExists(file);
            }
            Files.deleteIfExists(dir);
        }
        catch (IOException ex) {
            // temporary files only
        }
    }
}
