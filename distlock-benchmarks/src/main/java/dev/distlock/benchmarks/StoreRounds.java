package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One repeat of workloads S and R: for every store, distlock's measurement (S) and the same measurement of the
 * store's raw cycle (R) back to back, so that both sides of a ratio see the machine in the same state (on a shared
 * machine the load drifts over minutes). The store order rotates every repeat, and which of the pair runs first
 * alternates, so that neither side always runs right after another store's measurement.
 */
final class StoreRounds {

    private StoreRounds() {
    }

    /**
     * @param stores the started stores
     * @param distlock whether S runs
     * @param raw R's workloads, or null when R does not run
     * @param repeat the repeat's index, from 0
     */
    static void run(StoreWorkloads stores, boolean distlock, @Nullable RawCycleWorkloads raw, int repeat)
            throws Exception {
        List<StoreUnderTest> order = new ArrayList<>(stores.stores());
        Collections.rotate(order, -repeat);
        boolean rawFirst = repeat % 2 == 1;
        for (int threads : List.of(1, 8)) {
            for (StoreUnderTest store : order) {
                int n = threads;
                pair(rawFirst, distlock ? () -> {
                    log("  S %s, A with %d threads", store.name(), n);
                    stores.uncontended(store, n);
                } : null, raw == null ? null : () -> raw.uncontended(store, n));
            }
        }
        for (StoreUnderTest store : order) {
            pair(rawFirst, distlock ? () -> {
                log("  S %s, hot key: %d nodes x %d threads, %d us inside", store.name(), StoreWorkloads.HOT_NODES,
                        StoreWorkloads.HOT_THREADS, StoreWorkloads.HOT_WORK.toNanos() / 1000);
                stores.hotKey(store);
            } : null, raw == null ? null : () -> raw.hotKey(store));
        }
    }

    /** A measurement. */
    private interface Step {
        void run() throws Exception;
    }

    private static void pair(boolean rawFirst, @Nullable Step distlock, @Nullable Step raw) throws Exception {
        Step first = rawFirst ? raw : distlock;
        Step second = rawFirst ? distlock : raw;
        if (first != null) {
            first.run();
        }
        if (second != null) {
            second.run();
        }
    }

    private static void log(String format, Object... args) {
        System.out.printf("[bench] " + format + "%n", args);
    }
}
