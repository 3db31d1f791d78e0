package dev.distlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.lang.management.MemoryMXBean;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import io.lettuce.core.KeyScanCursor;
import io.lettuce.core.ScanArgs;
import io.lettuce.core.ScanCursor;

import dev.distlock.benchmarks.LockContender.Held;
import dev.distlock.benchmarks.LockContender.LockClient;

/**
 * Workload L, many held locks (DESIGN §8, issue 40): one client holds {@code --held} watchdog locks (default
 * {@value #DEFAULT_HELD}) on distinct names, and the harness reads what holding them costs: client heap and Redis
 * memory per held lock, the renewal traffic and Redis CPU per second over a quiet window of {@code --seconds}, and
 * the latency of acquiring and releasing other names meanwhile. Then every lock is released and the run's keys must
 * be gone. A failed acquire, a lock lost while held or a key left after the release counts as a failure
 * ({@link #failures()}), which fails the run.
 */
final class HeldLocksWorkload {

    /** The measurement's name in {@link Results}. */
    static final String MEASUREMENT = "L";

    static final int DEFAULT_HELD = 100_000;

    /** Acquire-and-release cycles that warm the client up (classes, scripts, connections) before the baseline. */
    private static final int WARMUP_CYCLES = 1000;

    /** Cycles of the idle latency, read before the locks are taken, to compare the held latency with. */
    private static final int IDLE_CYCLES = 5000;

    private final RedisTarget target;

    private final RedisProbe probe;

    private final Results results;

    private final boolean ownServer;

    private final int held;

    private final Duration window;

    private final MemoryMXBean memory = ManagementFactory.getMemoryMXBean();

    private final AtomicLong failures = new AtomicLong();

    /**
     * @param target the Redis server
     * @param probe the harness's own connection to it
     * @param results where the figures go
     * @param ownServer true when the harness started the server, which it then may empty before each contender
     * @param held how many locks are held ({@code --held})
     * @param window the quiet window and the held-latency run ({@code --seconds})
     */
    HeldLocksWorkload(RedisTarget target, RedisProbe probe, Results results, boolean ownServer, int held,
            Duration window) {
        this.target = target;
        this.probe = probe;
        this.results = results;
        this.ownServer = ownServer;
        this.held = held;
        this.window = window;
    }

    /** @return failed acquires, locks lost while held and keys left after the release, over every run so far */
    long failures() {
        return failures.get();
    }

    /** Runs L for every contender that holds watchdog locks past the call that took them, one after the other. */
    void run(List<LockContender> contenders) throws Exception {
        for (LockContender contender : contenders) {
            if (contender.renewsLeases() && contender.holdsHandles()) {
                System.out.printf("[bench]   L %s, %,d locks held, %d s window%n", contender.name(), held,
                        window.toSeconds());
                run(contender);
            }
        }
    }

    private void run(LockContender contender) throws Exception {
        String name = contender.name();
        if (ownServer) {
            probe.redis().flushall(); // absolute key counts and memory, nothing of an earlier contender left
        }
        String run = "bench:" + UUID.randomUUID().toString().substring(0, 8) + ":";
        // The names are the application's data, made before the baseline: what is measured is what the library
        // keeps per lock on top of them (a copy of a name counts, a reference to it does not).
        String[] names = new String[held];
        for (int i = 0; i < held; i++) {
            names[i] = run + "L:" + i;
        }
        try (HeldLockOwners owners = new HeldLockOwners(held);
                LockClient client = contender.connect(target, null)) { // library default watchdog lease
            // Held from before the warm-up to the end, so that the client's watchdog never runs out of locks: Redisson
            // (4.7.0, RenewalTask) stops its renewal timer when its last lock is released without cancelling the
            // timer already set, and sets another at the next lock, so each lock-unlock cycle on an otherwise idle
            // client leaves one more renewal chain that, once locks are held, renews all of them. Thousands of
            // warm-up cycles would leave thousands of chains, and what L measured would be those.
            Held anchor = client.acquire(run + "anchor");
            try {
                measure(name, client, run, names, owners);
            }
            finally {
                owners.releaseAll(); // also after a failure: a lock left held is renewed until the JVM ends
                anchor.release();
            }
            long leftover = countKeys(run);
            results.add(MEASUREMENT, name, "leftover keys", leftover);
            failures.addAndGet(leftover);
        }
    }

    private void measure(String name, LockClient client, String run, String[] names, HeldLockOwners owners)
            throws Exception {
        String heldPrefix = run + "L:";
        cycles(client, run + "w:", WARMUP_CYCLES, null);
        LatencyRecorder idle = new LatencyRecorder();
        cycles(client, run + "i:", IDLE_CYCLES, idle);
        long heapBefore = settledHeap();
        long redisBefore = probe.usedMemory();
        long keysBefore = probe.dbSize();

        long nanos = System.nanoTime();
        long failed = owners.acquire(client, names);
        nanos = System.nanoTime() - nanos;
        long redisAfter = probe.usedMemory();
        long keysAfter = probe.dbSize();
        long heapAfter = settledHeap();
        long holding = owners.size();

        // The quiet window: nothing but the held locks' renewals (and the library's own housekeeping).
        RedisProbe.ServerCpu cpuBefore = probe.serverCpu();
        Map<String, Long> callsBefore = probe.commandStats();
        long windowNanos = System.nanoTime();
        Thread.sleep(window.toMillis()); // holding the locks is the behaviour measured
        windowNanos = System.nanoTime() - windowNanos;
        Map<String, Long> calls = delta(callsBefore, probe.commandStats());
        RedisProbe.ServerCpu cpu = probe.serverCpu().minus(cpuBefore);

        LatencyRecorder whileHeld = new LatencyRecorder();
        long until = System.nanoTime() + window.toNanos(); // as long as the window: it meets renewal runs
        for (int i = 0; System.nanoTime() - until < 0 || i < IDLE_CYCLES; i++) {
            cycle(client, run + "p:" + i, whileHeld);
        }
        // Lost at any time since its acquire: gone from Redis, or no longer held in the library's own view.
        long lost = holding - Math.min(countKeys(heldPrefix), owners.stillHeld());

        double seconds = windowNanos / 1e9;
        long scripts = calls.entrySet().stream().filter(e -> isScript(e.getKey())).mapToLong(Map.Entry::getValue).sum();
        long commands = calls.values().stream().mapToLong(Long::longValue).sum();
        var idlePercentiles = new LatencyRecorder.Percentiles(List.of(idle));
        var heldPercentiles = new LatencyRecorder.Percentiles(List.of(whileHeld));
        results.add(MEASUREMENT, name, "held", holding);
        results.add(MEASUREMENT, name, "window s", seconds);
        results.add(MEASUREMENT, name, "acquires/s", holding * 1e9 / nanos);
        results.add(MEASUREMENT, name, "heap B/lock", (heapAfter - heapBefore) / (double) held);
        results.add(MEASUREMENT, name, "redis B/lock", (redisAfter - redisBefore) / (double) held);
        results.add(MEASUREMENT, name, "keys/lock", (keysAfter - keysBefore) / (double) held);
        results.add(MEASUREMENT, name, "renewal requests/s", scripts / seconds);
        results.add(MEASUREMENT, name, "requests/lock/s", scripts / seconds / held);
        results.add(MEASUREMENT, name, "commands/s", commands / seconds);
        results.add(MEASUREMENT, name, "redis cpu ms/s", cpu.cpuSeconds() * 1000 / seconds);
        results.add(MEASUREMENT, name, "idle p50", idlePercentiles.micros(0.50));
        results.add(MEASUREMENT, name, "idle p99", idlePercentiles.micros(0.99));
        results.add(MEASUREMENT, name, "held p50", heldPercentiles.micros(0.50));
        results.add(MEASUREMENT, name, "held p99", heldPercentiles.micros(0.99));
        results.add(MEASUREMENT, name, "held max", heldPercentiles.micros(1.0));
        results.add(MEASUREMENT, name, "held cycles", whileHeld.size());
        results.add(MEASUREMENT, name, "failed acquires", failed);
        results.add(MEASUREMENT, name, "lost", lost);
        results.note(MEASUREMENT, name, calls.entrySet().stream()
                .map(e -> e.getKey() + " " + ReportCells.fmt(e.getValue() / seconds) + "/s")
                .collect(Collectors.joining(", ")));
        failures.addAndGet(failed + lost);
    }

    private static void cycles(LockClient client, String prefix, int count, LatencyRecorder recorder)
            throws Exception {
        for (int i = 0; i < count; i++) {
            cycle(client, prefix + i, recorder);
        }
    }

    private static void cycle(LockClient client, String name, LatencyRecorder recorder) throws Exception {
        long start = System.nanoTime();
        client.acquire(name).release();
        if (recorder != null) {
            recorder.record(System.nanoTime() - start);
        }
    }

    /**
     * Heap in use after full collections: the lowest of a few, so that garbage made by the libraries' threads in
     * between (timers, renewals) counts as little as possible.
     */
    private long settledHeap() {
        long least = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            System.gc();
            least = Math.min(least, memory.getHeapMemoryUsage().getUsed());
        }
        return least;
    }

    /** @return keys whose name contains the prefix (every contender's keys contain the lock name) */
    private long countKeys(String prefix) {
        ScanArgs args = ScanArgs.Builder.matches("*" + prefix + "*").limit(10_000);
        KeyScanCursor<String> cursor = probe.redis().scan(args);
        long count = cursor.getKeys().size();
        while (!cursor.isFinished()) {
            cursor = probe.redis().scan(ScanCursor.of(cursor.getCursor()), args);
            count += cursor.getKeys().size();
        }
        return count;
    }

    /** @return calls per command between the two snapshots, without the probe's own INFO */
    private static Map<String, Long> delta(Map<String, Long> before, Map<String, Long> after) {
        Map<String, Long> delta = new TreeMap<>();
        after.forEach((command, calls) -> {
            long d = calls - before.getOrDefault(command, 0L);
            if (d > 0 && !command.equals("info")) {
                delta.put(command, d);
            }
        });
        return delta;
    }

    /** A request that runs a script: what both libraries renew with (the commands it runs count apart). */
    private static boolean isScript(String command) {
        return command.startsWith("eval") || command.startsWith("fcall");
    }
}
