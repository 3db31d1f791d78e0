package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.test.support.RawCycle;

/**
 * Workload R: each store's minimal lock cycle without distlock ({@link RawCycle}), measured as workload S measures
 * distlock on the store, in the same run and on the same servers, so that S's figure per store is its ratio to
 * this: {@code R A1}, {@code R A8} (a new name every cycle, 1 and 8 threads on one node) and {@code R hot}
 * ({@value StoreWorkloads#HOT_NODES} nodes × {@value StoreWorkloads#HOT_THREADS} threads on one name, ~50 µs of busy
 * work inside, mutual exclusion checked by a counter of holders).
 */
final class RawCycleWorkloads {

    static final String HOT = "R hot";

    /** Where each store's raw cycle leaves its recipe, as a note for the report. */
    static final String RECIPE = "R";

    private final Settings settings;

    private final Results results;

    private final AtomicLong exclusionViolations;

    private final Map<String, RawCycle> cycles = new LinkedHashMap<>();

    /**
     * @param stores the started stores of workload S; those without a raw cycle are left out
     * @param redis the harness's Redis, the reference store
     */
    RawCycleWorkloads(Settings settings, Results results, AtomicLong exclusionViolations, List<StoreUnderTest> stores,
            RedisTarget redis) {
        this.settings = settings;
        this.results = results;
        this.exclusionViolations = exclusionViolations;
        for (StoreUnderTest store : stores) {
            RawCycles.of(store, redis).ifPresent(cycle -> {
                cycles.put(store.id(), cycle);
                results.note(RECIPE, store.name(), cycle.recipe());
            });
        }
    }

    static String uncontended(int threads) {
        return "R A" + threads;
    }

    private static String runId() {
        return "raw-" + UUID.randomUUID().toString().substring(0, 8) + "-";
    }

    /** A node whose first cycle (connecting, a session) is done before any measurement counts. */
    private static RawCycle.Node node(RawCycle cycle) throws Exception {
        RawCycle.Node node = cycle.node();
        try {
            node.acquire(runId() + "connect").release();
            return node;
        }
        catch (Exception | Error ex) {
            node.close();
            throw ex;
        }
    }

    /** As {@link StoreWorkloads#warmUp}, on the store's raw cycle. */
    void warmUp(StoreUnderTest store, Duration time) throws Exception {
        RawCycle cycle = cycles.get(store.id());
        if (cycle == null) {
            return;
        }
        try (RawCycle.Node node = node(cycle)) {
            BenchThreads.cycles(StoreRounds.WARM_UP_THREADS, time, runId() + "j-", name -> node.acquire(name).release(),
                    new ArrayList<>(), new AtomicLong());
        }
    }

    /** Uncontended: one node, {@code threads} threads, acquire + release of a new name every cycle. */
    void uncontended(StoreUnderTest store, int threads) throws Exception {
        RawCycle cycle = cycles.get(store.id());
        if (cycle == null) {
            return;
        }
        String measurement = uncontended(threads);
        System.out.printf("[bench]   R %s raw cycle, A with %d threads%n", store.name(), threads);
        try (RawCycle.Node node = node(cycle)) {
            String prefix = runId();
            BenchThreads.cycles(threads, settings.warmup(), prefix + "w-", name -> node.acquire(name).release(),
                    new ArrayList<>(), new AtomicLong());
            List<LatencyRecorder> recorders = new ArrayList<>();
            AtomicLong errors = new AtomicLong();
            long nanos = BenchThreads.cycles(threads, settings.measure(), prefix + "m-",
                    name -> node.acquire(name).release(), recorders, errors);
            long count = recorders.stream().mapToLong(LatencyRecorder::size).sum();
            LatencyRecorder.Percentiles latencies = new LatencyRecorder.Percentiles(recorders);
            results.add(measurement, store.name(), "cycles/s", count * 1e9 / nanos);
            results.add(measurement, store.name(), "p50", latencies.micros(0.50));
            results.add(measurement, store.name(), "p99", latencies.micros(0.99));
            results.add(measurement, store.name(), "errors", errors.get());
        }
    }

    /**
     * The hot key: {@value StoreWorkloads#HOT_NODES} nodes × {@value StoreWorkloads#HOT_THREADS} threads on one
     * name, ~50 µs of busy work inside; grants counted after the warm-up, as in S's hot key.
     */
    void hotKey(StoreUnderTest store) throws Exception {
        RawCycle cycle = cycles.get(store.id());
        if (cycle == null) {
            return;
        }
        System.out.printf("[bench]   R %s raw cycle, hot key%n", store.name());
        List<RawCycle.Node> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < StoreWorkloads.HOT_NODES; i++) {
                nodes.add(node(cycle));
            }
            String name = runId() + "hot";
            int threads = StoreWorkloads.HOT_NODES * StoreWorkloads.HOT_THREADS;
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger lastNode = new AtomicInteger(-1);
            AtomicLong grants = new AtomicLong();
            AtomicLong nodeChanges = new AtomicLong();
            AtomicLong violations = new AtomicLong();
            AtomicLong errors = new AtomicLong();
            List<LatencyRecorder> waits = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                waits.add(new LatencyRecorder());
            }
            AtomicReference<Exception> firstError = new AtomicReference<>();
            long measureNanos = settings.measure().toNanos();
            BenchThreads.together(threads, settings.warmup().plus(settings.measure()), (t, end) -> {
                int nodeIndex = t % StoreWorkloads.HOT_NODES;
                RawCycle.Node node = nodes.get(nodeIndex);
                while (true) {
                    long start = System.nanoTime();
                    if (start >= end) {
                        return;
                    }
                    try {
                        RawCycle.Held held = node.acquire(name);
                        long acquiredAt = System.nanoTime();
                        if (inside.incrementAndGet() != 1) {
                            violations.incrementAndGet();
                        }
                        int previousNode = lastNode.getAndSet(nodeIndex);
                        if (acquiredAt >= end - measureNanos && acquiredAt < end) {
                            grants.incrementAndGet();
                            waits.get(t).record(acquiredAt - start);
                            if (previousNode != nodeIndex) {
                                nodeChanges.incrementAndGet();
                            }
                        }
                        long workEnd = acquiredAt + StoreWorkloads.HOT_WORK.toNanos();
                        while (System.nanoTime() < workEnd) {
                            Thread.onSpinWait(); // busy work under the lock, not a sleep
                        }
                        if (inside.decrementAndGet() != 0) {
                            violations.incrementAndGet();
                        }
                        held.release();
                    }
                    catch (Exception ex) {
                        errors.incrementAndGet();
                        firstError.compareAndSet(null, ex);
                    }
                }
            });
            if (firstError.get() != null) {
                System.err.println("  " + errors.get() + " failed raw hot-key calls, first: " + firstError.get());
            }
            double seconds = measureNanos / 1e9;
            LatencyRecorder.Percentiles waitPercentiles = new LatencyRecorder.Percentiles(waits);
            String who = store.name();
            results.add(HOT, who, "grants/s", grants.get() / seconds);
            results.add(HOT, who, "node changes/s", nodeChanges.get() / seconds);
            results.add(HOT, who, "wait p50", waitPercentiles.micros(0.50) / 1000);
            results.add(HOT, who, "wait p99", waitPercentiles.micros(0.99) / 1000);
            results.add(HOT, who, "violations", violations.get());
            results.add(HOT, who, "errors", errors.get());
            if (violations.get() > 0) {
                exclusionViolations.addAndGet(violations.get());
                results.note(HOT, who, "MUTUAL EXCLUSION VIOLATED " + violations.get() + " times");
                System.err.println("  RAW CYCLE: MUTUAL EXCLUSION VIOLATED " + violations.get() + " times on " + who);
            }
        }
        finally {
            for (RawCycle.Node node : nodes) {
                node.close();
            }
        }
    }
}
