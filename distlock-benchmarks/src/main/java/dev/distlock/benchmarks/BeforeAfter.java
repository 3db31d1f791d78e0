package dev.distlock.benchmarks;

/**
 * The report's before/after section: {@link Baseline} (the previous published run and the B2 issue) against the
 * medians of this run. Absolute rates move with the machine's load, so each rate comes with its ratio to a
 * contender measured in the same run.
 */
final class BeforeAfter {

    private final Results results;

    private final ReportCells cells;

    BeforeAfter(ReportCells cells) {
        this.results = cells.results();
        this.cells = cells;
    }

    void render() {
        cells.line("## Before and after");
        cells.line("");
        cells.line("*Before*: " + Baseline.SOURCE + ", and for B2 " + Baseline.ISSUE + ". *After*: this run. Rates "
                + "depend on the machine's load at the time, so compare the ratios (both sides of a ratio come from "
                + "the same run). B2 with 8 processes, G and H are new: see their sections.");
        cells.line("");
        cells.line("| | before | after |");
        cells.line("|---|---|---|");
        for (int threads : new int[] { 1, 8, 64 }) {
            String m = Workloads.uncontended(threads);
            var before = Baseline.A_CYCLES.get(threads);
            if (!results.has(m, Report.DISTLOCK, "cycles/s")) {
                continue;
            }
            row("A" + threads + " distlock cycles/s", before.get(Report.DISTLOCK), median(m, Report.DISTLOCK,
                    "cycles/s"), "");
            row("A" + threads + " distlock ÷ Redisson", before.get(Report.DISTLOCK) / before.get(Report.REDISSON),
                    ratio(m, Report.DISTLOCK, Report.REDISSON, "cycles/s"), "×");
            row("A" + threads + " distlock ÷ textbook", before.get(Report.DISTLOCK) / before.get(Report.TEXTBOOK),
                    ratio(m, Report.DISTLOCK, Report.TEXTBOOK, "cycles/s"), "×");
        }
        row("A64 distlock client CPU µs/cycle", Baseline.A64_DISTLOCK_CLIENT_CPU,
                median(Workloads.uncontended(64), Report.DISTLOCK, "cpu"), "");
        row("B distlock owner changes/s", Baseline.B_DISTLOCK_OWNER_CHANGES, median("B", Report.DISTLOCK,
                "owner changes/s"), "");
        row("B distlock ÷ Redisson owner changes/s", Baseline.B_DISTLOCK_OWNER_CHANGES
                / Baseline.B_REDISSON_OWNER_CHANGES, ratio("B", Report.DISTLOCK, Report.REDISSON, "owner changes/s"),
                "×");
        row("B distlock wait p99 ms", Baseline.B_DISTLOCK_WAIT_P99, median("B", Report.DISTLOCK, "wait p99"), "");
        row("C distlock Redis commands per cycle", Baseline.C_DISTLOCK_COMMANDS, median("C", Report.DISTLOCK,
                "commands"), "");
        for (int n : new int[] { 2, 3, 4 }) {
            String m = ProcessWorkloads.handOff(n);
            if (!results.has(m, Report.DISTLOCK, "owner changes/s")) {
                continue;
            }
            row("B2 " + n + " processes: distlock owner changes/s", Baseline.B2_DISTLOCK.get(n),
                    median(m, Report.DISTLOCK, "owner changes/s"), "");
            row("B2 " + n + " processes: Redisson owner changes/s", Baseline.B2_REDISSON.get(n),
                    median(m, Report.REDISSON, "owner changes/s"), "");
            row("B2 " + n + " processes: distlock ÷ Redisson", Baseline.B2_DISTLOCK.get(n)
                    / Baseline.B2_REDISSON.get(n), ratio(m, Report.DISTLOCK, Report.REDISSON, "owner changes/s"), "×");
            cells.line("| B2 " + n + " processes: wait p99 ms, distlock / Redisson | ≈ "
                    + ReportCells.fmt(Baseline.B2_DISTLOCK_WAIT_P99) + " / " + Baseline.B2_REDISSON_WAIT_P99 + " | "
                    + ReportCells.fmt(median(m, Report.DISTLOCK, "wait p99")) + " / "
                    + ReportCells.fmt(median(m, Report.REDISSON, "wait p99")) + " |");
        }
        cells.line("");
    }

    private double median(String measurement, String contender, String metric) {
        return results.median(measurement, contender, metric);
    }

    private double ratio(String measurement, String contender, String reference, String metric) {
        return median(measurement, contender, metric) / median(measurement, reference, metric);
    }

    private void row(String label, double before, double after, String unit) {
        if (Double.isNaN(after)) {
            return;
        }
        cells.line("| " + label + " | " + ReportCells.fmt(before) + unit + " | " + ReportCells.fmt(after) + unit + " |");
    }
}
