package dev.distlock.benchmarks;

import java.util.List;
import java.util.Locale;

/**
 * The report's section on workload R: per store, distlock (workload S) against the store's raw cycle measured in
 * the same run, and their ratios against the targets of issue 40 (uncontended ≥ {@value #UNCONTENDED_TARGET}×,
 * hot key ≥ {@value #HOT_TARGET}×). Ratios are of the medians over the repeats.
 */
final class RawCycleReport {

    static final double UNCONTENDED_TARGET = 0.8;

    static final double HOT_TARGET = 0.5;

    private final Results results;

    private final List<StoreUnderTest> stores;

    private final ReportCells cells;

    RawCycleReport(List<StoreUnderTest> stores, ReportCells cells) {
        this.results = cells.results();
        this.stores = stores;
        this.cells = cells;
    }

    void render() {
        cells.line("## R. distlock against each store's raw lock cycle");
        cells.line("");
        cells.line("Each store's minimal lock cycle without distlock, on the client library its store module uses, "
                + "run as S runs distlock (same threads, names, warm-up, window and servers, in the same run; a "
                + "polling waiter pauses 0.5–1.5 ms; before the first repeat both sides of every store run A with "
                + StoreRounds.WARM_UP_THREADS + " threads for " + StoreRounds.WARM_UP_FACTOR + " × the warm-up, "
                + "unmeasured). Ratio = distlock ÷ raw, of the medians; targets (issue 40): "
                + "uncontended ≥ " + UNCONTENDED_TARGET + "×, hot key ≥ " + HOT_TARGET + "×. ✓ met, ✗ missed.");
        cells.line("");
        cells.line("| store | S A1 | raw A1 | ratio | S A8 | raw A8 | ratio | S hot | raw hot | ratio |");
        cells.line("|---|---|---|---|---|---|---|---|---|---|");
        for (StoreUnderTest store : stores) {
            if (results.note(RawCycleWorkloads.RECIPE, store.name()) == null) {
                continue; // no raw cycle for this set-up
            }
            String who = store.name();
            cells.line("| " + who + " | "
                    + triple(StoreWorkloads.uncontended(1), RawCycleWorkloads.uncontended(1), who, "cycles/s",
                            UNCONTENDED_TARGET) + " | "
                    + triple(StoreWorkloads.uncontended(8), RawCycleWorkloads.uncontended(8), who, "cycles/s",
                            UNCONTENDED_TARGET) + " | "
                    + triple(StoreWorkloads.HOT, RawCycleWorkloads.HOT, who, "grants/s", HOT_TARGET) + " |");
        }
        cells.line("");
        cells.line("The raw cycles (cycles/s for A, grants/s for the hot key; latencies in µs, waits in ms):");
        cells.line("");
        cells.line("| store | raw cycle | A1 p50 | A8 p50 | hot wait p50 | hot wait p99 | hot node changes/s | "
                + "violations | failed calls |");
        cells.line("|---|---|---|---|---|---|---|---|---|");
        for (StoreUnderTest store : stores) {
            String recipe = results.note(RawCycleWorkloads.RECIPE, store.name());
            if (recipe != null) {
                String who = store.name();
                String hot = RawCycleWorkloads.HOT;
                cells.line("| " + who + " | " + recipe + " | "
                        + median(RawCycleWorkloads.uncontended(1), who, "p50") + " | "
                        + median(RawCycleWorkloads.uncontended(8), who, "p50") + " | " + median(hot, who, "wait p50")
                        + " | " + median(hot, who, "wait p99") + " | " + median(hot, who, "node changes/s") + " | "
                        + sum(hot, who, "violations") + " | "
                        + (sum(hot, who, "errors") + sum(RawCycleWorkloads.uncontended(1), who, "errors")
                                + sum(RawCycleWorkloads.uncontended(8), who, "errors")) + " |");
            }
        }
        cells.line("");
    }

    /** @return "distlock | raw | ratio ✓/✗" for one measurement of S and its raw counterpart */
    private String triple(String distlock, String rawMeasurement, String who, String metric, double target) {
        double ours = results.median(distlock, who, metric);
        double theirs = results.median(rawMeasurement, who, metric);
        double ratio = ours / theirs;
        String mark = Double.isNaN(ratio) ? "" : ratio >= target ? " ✓" : " ✗";
        return ReportCells.fmt(ours) + " | " + ReportCells.fmt(theirs) + " | "
                + (Double.isNaN(ratio) ? "–" : String.format(Locale.ROOT, "%.2f×", ratio)) + mark;
    }

    private String median(String measurement, String who, String metric) {
        return ReportCells.fmt(results.median(measurement, who, metric));
    }

    private long sum(String measurement, String who, String metric) {
        return (long) results.all(measurement, who, metric).stream().mapToDouble(Double::doubleValue).sum();
    }
}
