package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The workloads with several JVMs on one lock name, each a separate process with its own client instance:
 * <ul>
 * <li><b>B2</b>: N processes, one thread each, nothing inside the lock (pure hand-off);</li>
 * <li><b>G</b>: 3 processes × 16 threads, ~50 µs of busy work inside (a hot key in a small cluster).</li>
 * </ul>
 * Grants are counted in the children over a shared memory-mapped file ({@link SharedSlots}), which also checks
 * mutual exclusion across the processes.
 */
final class ProcessWorkloads {

    private final RedisTarget target;

    private final Settings settings;

    private final Results results;

    private final AtomicLong exclusionViolations;

    /** Failed lock calls while the children of the last measurement warmed up (before the measured window). */
    private long warmUpFailures;

    ProcessWorkloads(RedisTarget target, Settings settings, Results results, AtomicLong exclusionViolations) {
        this.target = target;
        this.settings = settings;
        this.results = results;
        this.exclusionViolations = exclusionViolations;
    }

    static String handOff(int processes) {
        return "B2-" + processes;
    }

    /** B2: {@code processes} JVMs, one thread each, alternating on one name with nothing inside. */
    void handOff(String contenderId, LockContender contender, int processes) throws Exception {
        List<ChildResult> children = runChildren(handOff(processes), contender, contenderId, processes, 1,
                Duration.ZERO);
        record(handOff(processes), contender, children);
    }

    /** G: {@link Settings#hotJvms()} JVMs × {@link Settings#hotThreads()} threads with busy work inside. */
    void hotKey(String contenderId, LockContender contender) throws Exception {
        List<ChildResult> children = runChildren("G", contender, contenderId, settings.hotJvms(),
                settings.hotThreads(), settings.hotWork());
        record("G", contender, children);
        double seconds = settings.measure().toNanos() / 1e9;
        results.add("G", contender.name(), "jvm changes/s",
                children.stream().mapToLong(ChildResult::jvmChanges).sum() / seconds);
        long[] perThread = children.stream().flatMapToLong(c -> Arrays.stream(c.acquisitions())).toArray();
        results.add("G", contender.name(), "thread jain", jain(perThread));
    }

    private List<ChildResult> runChildren(String measurement, LockContender contender, String contenderId,
            int jvms, int threads, Duration work) throws Exception {
        String name = "bench:" + UUID.randomUUID().toString().substring(0, 8) + ":hot";
        try (ChildProcesses children = new ChildProcesses(contenderId, target, name, jvms, threads, work)) {
            List<ChildResult> results = children.run(settings.warmup(), settings.measure());
            warmUpFailures = children.warmUpFailureCount();
            if (warmUpFailures > 0) {
                // Before the measured window, so not in its numbers; but an application would have seen them.
                System.err.println("  " + measurement + " " + contender.name() + ": " + children.warmUpFailures());
            }
            return results;
        }
    }

    /** Records what every measurement with child JVMs has: rates, waits, each JVM's share, exclusion. */
    private void record(String measurement, LockContender contender, List<ChildResult> children) {
        String who = contender.name();
        double seconds = settings.measure().toNanos() / 1e9;
        long[] perJvm = children.stream().mapToLong(ChildResult::totalAcquisitions).toArray();
        long total = Arrays.stream(perJvm).sum();
        LatencyRecorder.Percentiles waits = ChildResult.waits(children);
        results.add(measurement, who, "acquisitions/s", total / seconds);
        results.add(measurement, who, "owner changes/s",
                children.stream().mapToLong(ChildResult::ownerChanges).sum() / seconds);
        results.add(measurement, who, "wait p50", waits.micros(0.50) / 1000);
        results.add(measurement, who, "wait p99", waits.micros(0.99) / 1000);
        results.add(measurement, who, "wait p99.9", waits.micros(0.999) / 1000);
        long min = Arrays.stream(perJvm).min().orElse(0);
        long max = Arrays.stream(perJvm).max().orElse(0);
        results.add(measurement, who, "min/max", max == 0 ? 0 : (double) min / max);
        results.add(measurement, who, "jain", jain(perJvm));
        // Shares sorted largest first: the median of "the largest share" over repeats means something, the
        // share of "JVM 0" (an arbitrary start order) does not.
        long[] sorted = perJvm.clone();
        Arrays.sort(sorted);
        for (int i = 0; i < sorted.length; i++) {
            results.add(measurement, who, "share " + (i + 1),
                    total == 0 ? 0 : 100.0 * sorted[sorted.length - 1 - i] / total);
        }
        long violations = children.stream().mapToLong(ChildResult::violations).sum();
        long errors = children.stream().mapToLong(ChildResult::errors).sum();
        results.add(measurement, who, "violations", violations);
        results.add(measurement, who, "errors", errors);
        results.add(measurement, who, "warm-up failures", warmUpFailures);
        if (violations > 0) {
            exclusionViolations.addAndGet(violations);
            results.note(measurement, who, "MUTUAL EXCLUSION VIOLATED " + violations + " times");
            System.err.println("  MUTUAL EXCLUSION VIOLATED " + violations + " times by " + who);
        }
        if (errors > 0) {
            String first = children.stream().map(ChildResult::firstError).filter(e -> !e.isEmpty()).findFirst()
                    .orElse("");
            System.err.println("  " + errors + " failed lock calls in " + measurement + " " + who + ": " + first);
        }
    }

    /** Jain's fairness index: (Σx)² / (n·Σx²), 1 when all equal, 1/n when one gets everything. */
    static double jain(long[] counts) {
        double sum = 0;
        double squares = 0;
        for (long c : counts) {
            sum += c;
            squares += (double) c * c;
        }
        return squares == 0 ? 0 : sum * sum / (counts.length * squares);
    }
}
