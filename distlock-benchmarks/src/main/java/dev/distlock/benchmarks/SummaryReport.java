package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.function.DoublePredicate;

import static dev.distlock.benchmarks.ReportCells.fmt;
import static dev.distlock.benchmarks.ReportCells.yes;

/** The report's summary: the key ratios as bars, and each target of the Redis contenders met or not. */
final class SummaryReport {

    private final Settings settings;

    private final Results results;

    private final ReportCells cells;

    SummaryReport(Settings settings, ReportCells cells) {
        this.settings = settings;
        this.results = cells.results();
        this.cells = cells;
    }

    private record Ratio(String label, double value, String target, Boolean met) {
    }

    void render() {
        List<Ratio> ratios = new ArrayList<>();
        String a64 = Workloads.uncontended(64);
        double distlock64 = results.median(a64, Report.DISTLOCK, "cycles/s");
        ratios.add(ratio("A64 cycles/s: distlock / Redisson", distlock64, results.median(a64, "Redisson RLock", "cycles/s"), 3));
        ratios.add(ratio("A64 cycles/s: distlock / RedisLockRegistry spin", distlock64,
                results.median(a64, "RedisLockRegistry spin", "cycles/s"), 1.5));
        ratios.add(ratio("A64 cycles/s: distlock / RedisLockRegistry pub/sub", distlock64,
                results.median(a64, "RedisLockRegistry pub/sub", "cycles/s"), 1.5));
        ratios.add(ratio("A64 cycles/s: distlock / textbook", distlock64,
                results.median(a64, "SET NX PX (textbook)", "cycles/s"), Double.NaN));
        ratios.add(ratio("A64 cycles/s: distlock / Redis ceiling", distlock64,
                results.median("D", Workloads.CEILING, "cycles/s"), 0.85));
        ratios.add(ratio("B owner changes/s: distlock / Redisson", results.median("B", Report.DISTLOCK, "owner changes/s"),
                results.median("B", "Redisson RLock", "owner changes/s"), 1.5));
        ratios.add(ratio("B1 acquisitions/s: distlock / Redisson", results.median("B1", Report.DISTLOCK, "acquisitions/s"),
                results.median("B1", Report.REDISSON, "acquisitions/s"), 5));
        for (int n : settings.processCounts()) {
            String b2 = ProcessWorkloads.handOff(n);
            ratios.add(ratio("B2 " + n + " processes, owner changes/s: distlock / Redisson",
                    results.median(b2, Report.DISTLOCK, "owner changes/s"), results.median(b2, Report.REDISSON, "owner changes/s"),
                    1.5));
        }
        ratios.add(ratio("G owner changes/s: distlock / Redisson", results.median("G", Report.DISTLOCK, "owner changes/s"),
                results.median("G", Report.REDISSON, "owner changes/s"), Double.NaN));
        ratios.add(ratio("A64 cycles/s: Boot LockService / bare engine",
                results.median(a64, Report.DISTLOCK_BOOT, "cycles/s"), distlock64, Double.NaN));
        ratios.add(ratio("A64 cycles/s: @DistributedLock / bare engine",
                results.median(a64, Report.DISTLOCK_BOOT_ANNOTATION, "cycles/s"), distlock64, Double.NaN));
        ratios.add(ratio("B owner changes/s: @DistributedLock / bare engine",
                results.median("B", Report.DISTLOCK_BOOT_ANNOTATION, "owner changes/s"),
                results.median("B", Report.DISTLOCK, "owner changes/s"), Double.NaN));
        ratios.removeIf(r -> Double.isNaN(r.value()));

        cells.line("## Summary");
        cells.line("");
        if (!ratios.isEmpty()) {
            cells.line("Key ratios (medians; the bar is the ratio, `|` marks the target):");
            cells.line("");
            cells.line("```text");
            double scale = 8; // characters per 1.0×
            double max = ratios.stream().mapToDouble(Ratio::value).max().orElse(1);
            if (max * scale > 48) {
                scale = 48 / max;
            }
            int labelWidth = ratios.stream().mapToInt(r -> r.label().length()).max().orElse(10);
            for (Ratio r : ratios) {
                int width = (int) Math.round(r.value() * scale);
                StringBuilder bar = new StringBuilder("█".repeat(Math.max(width, 0)));
                if (r.target() != null) {
                    int at = (int) Math.round(Double.parseDouble(r.target()) * scale);
                    while (bar.length() <= at) {
                        bar.append(' ');
                    }
                    bar.setCharAt(at, '|');
                }
                cells.line(String.format(Locale.ROOT, "%-" + labelWidth + "s %s %.2f×", r.label(), bar, r.value()));
            }
            cells.line("```");
            cells.line("");
        }
        cells.line("| target (2-core machine) | measured | met |");
        cells.line("|---|---|---|");
        for (Ratio r : ratios) {
            if (r.target() != null) {
                cells.line("| " + r.label() + " ≥ " + r.target() + "× | " + fmt(r.value()) + "× | " + yes(r.met()) + " |");
            }
        }
        targetRow("A64 distlock client CPU per cycle ≤ 50 µs", a64, Report.DISTLOCK, "cpu", "µs", v -> v <= 50);
        targetRow("B distlock wait p99 ≤ 10 ms", "B", Report.DISTLOCK, "wait p99", "ms", v -> v <= 10);
        targetRow("B distlock fairness ≥ 0.9", "B", Report.DISTLOCK, "fairness", "", v -> v >= 0.9);
        for (int n : settings.processCounts()) {
            String b2 = ProcessWorkloads.handOff(n);
            targetRow("B2 " + n + " processes: distlock wait p99 ≤ 5 ms", b2, Report.DISTLOCK, "wait p99", "ms",
                    v -> v <= 5);
            targetRow("B2 " + n + " processes: distlock fairness (min/max share) ≥ 0.95", b2, Report.DISTLOCK, "min/max",
                    "", v -> v >= 0.95);
        }
        targetRow("C distlock requests per uncontended cycle = 2", "C", Report.DISTLOCK, "requests", "", v -> v <= 2.005);
        targetRow("E distlock renewal requests per lock per second ≤ 0.02", "E", Report.DISTLOCK, "requests/lock/s", "",
                v -> v <= 0.02);
        targetRow("F annotation overhead ≤ 5 µs per call", "F", Report.DISTLOCK_ANNOTATION, "overhead", "µs", v -> v <= 5);
        cells.line("");
    }

    private Ratio ratio(String label, double numerator, double denominator, double target) {
        double value = numerator / denominator;
        return new Ratio(label, value, Double.isNaN(target) ? null : ReportCells.trim(target),
                Double.isNaN(target) || Double.isNaN(value) ? null : value >= target);
    }

    private void targetRow(String label, String measurement, String contender, String metric, String unit,
            DoublePredicate met) {
        if (!results.has(measurement, contender, metric)) {
            return;
        }
        double value = results.median(measurement, contender, metric);
        cells.line("| " + label + " | " + fmt(value) + (unit.isEmpty() ? "" : " " + unit) + " | " + yes(met.test(value))
                + " |");
    }
}
