package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * One repeat of workloads S and R: for every store, distlock's measurement (S) and the same measurement of the
 * store's raw cycle (R) back to back, so that both sides of a ratio see the machine in the same state (on a shared
 * machine the load drifts over minutes). The store order rotates every repeat, and which of the pair runs first
 * alternates, so that neither side always runs right after another store's measurement.
 * <p>
 * Before the first repeat measures anything, both sides of every store run A with {@value #WARM_UP_THREADS} threads
 * for {@link #WARM_UP_FACTOR} times the warm-up time, unrecorded: each measurement's own warm-up (2 s by default) is
 * a few thousand cycles on the slower stores, too few for the JIT to compile a path, and the first side measured
 * also warmed the client library for the second (etcd S A1 ÷ raw 0.51× with it, 0.78× with 8 s of warm-up).
 */
final class StoreRounds {

    /** The threads of the warm-up before the first repeat. */
    static final int WARM_UP_THREADS = 8;

    /** The warm-up before the first repeat, in multiples of a measurement's warm-up time. */
    static final int WARM_UP_FACTOR = 4;

    private StoreRounds() {
    }

    /**
     * @param stores the started stores
     * @param distlock whether S runs
     * @param raw R's workloads, or null when R does not run
     * @param repeat the repeat's index, from 0
     * @param warmup a measurement's warm-up time
     */
    static void run(StoreWorkloads stores, boolean distlock, @Nullable RawCycleWorkloads raw, int repeat,
            Duration warmup) throws Exception {
        List<StoreUnderTest> order = new ArrayList<>(stores.stores());
        Collections.rotate(order, -repeat);
        if (repeat == 0) {
            Duration time = warmup.multipliedBy(WARM_UP_FACTOR);
            for (StoreUnderTest store : order) {
                log("  S and R %s, warm-up: A with %d threads, %d ms each, not measured", store.name(),
                        WARM_UP_THREADS, time.toMillis());
                if (distlock) {
                    stores.warmUp(store, time);
                }
                if (raw != null) {
                    raw.warmUp(store, time);
                }
            }
        }
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
