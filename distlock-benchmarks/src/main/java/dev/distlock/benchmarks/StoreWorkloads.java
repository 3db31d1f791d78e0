package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.LockHandle;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;

/**
 * Workload S: distlock's engine ({@link StoreLockService}, the same settings for every store) on each of its stores,
 * to put a price on a store choice. Three measurements per store, recorded under the store's name:
 * <ul>
 * <li>{@code S A1}, {@code S A8} — benchmark A on the store: uncontended lock + unlock of a new name every cycle,
 * 1 and 8 threads on one node;</li>
 * <li>{@code S hot} — one name, {@value #HOT_NODES} nodes × {@value #HOT_THREADS} threads in this JVM, ~50 µs of
 * busy work inside: grants, owner changes, node changes, waits, each node's share, mutual exclusion.</li>
 * </ul>
 * The stores are started once for the run ({@link Stores}); every measurement makes its nodes anew and closes them.
 */
final class StoreWorkloads implements AutoCloseable {

    static final int HOT_NODES = 3;

    static final int HOT_THREADS = 4;

    static final Duration HOT_WORK = Duration.ofNanos(50_000);

    /** Waits as long as a measurement may take, so that slow stores count slow grants, not failures. */
    private static final LockConfig ENGINE = LockConfig.defaults().withWaitTime(Duration.ofSeconds(30));

    private final Settings settings;

    private final Results results;

    private final AtomicLong exclusionViolations;

    private final List<StoreUnderTest> stores;

    private final List<String> skipped;

    private StoreWorkloads(Settings settings, Results results, AtomicLong exclusionViolations,
            List<StoreUnderTest> stores, List<String> skipped) {
        this.settings = settings;
        this.results = results;
        this.exclusionViolations = exclusionViolations;
        this.stores = stores;
        this.skipped = skipped;
    }

    /**
     * Starts the stores of {@code settings.stores()}, leaving out (with a message) those this machine cannot run.
     *
     * @param redis the harness's Redis, the standalone store and reference
     * @return the workloads, owning the started stores
     */
    static StoreWorkloads start(Settings settings, Results results, AtomicLong exclusionViolations, RedisTarget redis)
            throws Exception {
        List<StoreUnderTest> started = new ArrayList<>();
        List<String> skipped = new ArrayList<>();
        try {
            for (String id : settings.stores()) {
                System.out.println("[bench] starting store " + id);
                Stores.start(id, redis, skipped::add).ifPresent(started::add);
            }
        }
        catch (Exception | Error ex) {
            started.forEach(StoreUnderTest::close);
            throw ex;
        }
        return new StoreWorkloads(settings, results, exclusionViolations, List.copyOf(started),
                List.copyOf(skipped));
    }

    /** @return the started stores, in {@code --stores} order */
    List<StoreUnderTest> stores() {
        return stores;
    }

    /** @return the stores asked for that this machine cannot run, each with the reason, for the report */
    List<String> skipped() {
        return skipped;
    }

    static String uncontended(int threads) {
        return "S A" + threads;
    }

    static final String HOT = "S hot";

    private static String runId() {
        return "bench:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    private StoreLockService node(StoreUnderTest store) {
        StoreLockService node = new StoreLockService(store.newNode(), ENGINE, LockListener.NONE);
        node.start();
        // The first call pays for connecting (and for a ZooKeeper session): retry it, so that no measurement
        // starts on a node that is not connected yet.
        for (int tries = 0; ; tries++) {
            try {
                node.lock("bench:connect:" + UUID.randomUUID()).unlock();
                return node;
            }
            catch (RuntimeException ex) {
                if (tries == 10) {
                    node.close();
                    throw ex;
                }
            }
        }
    }

    // ---------------------------------------------------------------- A on a store

    /**
     * Runs A with {@value StoreRounds#WARM_UP_THREADS} threads for that long and records nothing: the JIT's warm-up
     * of the store's path before its first measurement ({@link StoreRounds}).
     */
    void warmUp(StoreUnderTest store, Duration time) throws Exception {
        try (StoreLockService node = node(store)) {
            BenchThreads.cycles(StoreRounds.WARM_UP_THREADS, time, runId() + "j:", name -> node.lock(name).unlock(),
                    new ArrayList<>(), new AtomicLong());
        }
        finally {
            store.closeNodes();
        }
    }

    void uncontended(StoreUnderTest store, int threads) throws Exception {
        String measurement = uncontended(threads);
        try (StoreLockService node = node(store)) {
            String prefix = runId();
            BenchThreads.cycles(threads, settings.warmup(), prefix + "w:", name -> node.lock(name).unlock(),
                    new ArrayList<>(), new AtomicLong());
            List<LatencyRecorder> recorders = new ArrayList<>();
            AtomicLong errors = new AtomicLong();
            long nanos = BenchThreads.cycles(threads, settings.measure(), prefix + "m:",
                    name -> node.lock(name).unlock(), recorders, errors);
            long cycles = recorders.stream().mapToLong(LatencyRecorder::size).sum();
            LatencyRecorder.Percentiles latencies = new LatencyRecorder.Percentiles(recorders);
            results.add(measurement, store.name(), "cycles/s", cycles * 1e9 / nanos);
            results.add(measurement, store.name(), "p50", latencies.micros(0.50));
            results.add(measurement, store.name(), "p99", latencies.micros(0.99));
            results.add(measurement, store.name(), "p99.9", latencies.micros(0.999));
            results.add(measurement, store.name(), "errors", errors.get());
            if (errors.get() > 0) {
                results.note(measurement, store.name(), errors.get() + " failed cycles");
            }
        }
        finally {
            store.closeNodes();
        }
    }

    // ---------------------------------------------------------------- hot key on a store

    /**
     * {@value #HOT_NODES} nodes, each a lock service with a store of its own, {@value #HOT_THREADS} threads each,
     * lock one name in a loop and spin ~50 µs inside. One run: the warm-up, then the measured window; grants are
     * counted in the window only.
     */
    void hotKey(StoreUnderTest store) throws Exception {
        List<StoreLockService> nodes = new ArrayList<>();
        try {
            for (int i = 0; i < HOT_NODES; i++) {
                nodes.add(node(store));
            }
            String name = runId() + "hot";
            int threads = HOT_NODES * HOT_THREADS;
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger lastThread = new AtomicInteger(-1);
            AtomicInteger lastNode = new AtomicInteger(-1);
            AtomicLong ownerChanges = new AtomicLong();
            AtomicLong nodeChanges = new AtomicLong();
            AtomicLong violations = new AtomicLong();
            AtomicLong errors = new AtomicLong();
            long[] grants = new long[threads];
            List<LatencyRecorder> waits = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                waits.add(new LatencyRecorder());
            }
            long measureNanos = settings.measure().toNanos();
            BenchThreads.together(threads, settings.warmup().plus(settings.measure()), (t, end) -> {
                int nodeIndex = t % HOT_NODES;
                StoreLockService node = nodes.get(nodeIndex);
                while (true) {
                    long start = System.nanoTime();
                    if (start >= end) {
                        return;
                    }
                    try (LockHandle handle = node.lock(name)) {
                        long acquiredAt = System.nanoTime();
                        if (inside.incrementAndGet() != 1) {
                            violations.incrementAndGet();
                        }
                        int previousThread = lastThread.getAndSet(t);
                        int previousNode = lastNode.getAndSet(nodeIndex);
                        if (acquiredAt >= end - measureNanos && acquiredAt < end) {
                            grants[t]++;
                            waits.get(t).record(acquiredAt - start);
                            if (previousThread != t) {
                                ownerChanges.incrementAndGet();
                            }
                            if (previousNode != nodeIndex) {
                                nodeChanges.incrementAndGet();
                            }
                        }
                        long workEnd = acquiredAt + HOT_WORK.toNanos();
                        while (System.nanoTime() < workEnd) {
                            Thread.onSpinWait(); // busy work under the lock, not a sleep
                        }
                        if (inside.decrementAndGet() != 0) {
                            violations.incrementAndGet();
                        }
                    }
                    catch (RuntimeException ex) {
                        errors.incrementAndGet();
                    }
                }
            });
            double seconds = settings.measure().toNanos() / 1e9;
            long total = Arrays.stream(grants).sum();
            long[] perNode = new long[HOT_NODES];
            for (int t = 0; t < threads; t++) {
                perNode[t % HOT_NODES] += grants[t];
            }
            LatencyRecorder.Percentiles waitPercentiles = new LatencyRecorder.Percentiles(waits);
            String who = store.name();
            results.add(HOT, who, "grants/s", total / seconds);
            results.add(HOT, who, "owner changes/s", ownerChanges.get() / seconds);
            results.add(HOT, who, "node changes/s", nodeChanges.get() / seconds);
            results.add(HOT, who, "wait p50", waitPercentiles.micros(0.50) / 1000);
            results.add(HOT, who, "wait p99", waitPercentiles.micros(0.99) / 1000);
            // Shares largest first, as in G: "the largest share" has a median over repeats, "node 0" does not.
            long[] sorted = perNode.clone();
            Arrays.sort(sorted);
            for (int i = 0; i < HOT_NODES; i++) {
                results.add(HOT, who, "share " + (i + 1),
                        total == 0 ? 0 : 100.0 * sorted[HOT_NODES - 1 - i] / total);
            }
            results.add(HOT, who, "violations", violations.get());
            results.add(HOT, who, "errors", errors.get());
            if (violations.get() > 0) {
                exclusionViolations.addAndGet(violations.get());
                results.note(HOT, who, "MUTUAL EXCLUSION VIOLATED " + violations.get() + " times");
                System.err.println("  MUTUAL EXCLUSION VIOLATED " + violations.get() + " times on " + who);
            }
        }
        finally {
            nodes.forEach(StoreLockService::close);
            store.closeNodes();
        }
    }

    @Override
    public void close() {
        stores.forEach(StoreUnderTest::close);
    }
}
