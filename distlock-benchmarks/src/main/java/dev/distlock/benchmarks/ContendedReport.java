package dev.distlock.benchmarks;

import java.util.List;

import static dev.distlock.benchmarks.ReportCells.fmt;

/**
 * The report's contended sections on Redis: B (8 threads on one key), B1 (inside one client), B2 (across
 * processes), G (a hot key across JVMs) and P (permits).
 */
final class ContendedReport {

    private final Settings settings;

    private final List<LockContender> contenders;

    private final Results results;

    private final ReportCells cells;

    ContendedReport(Settings settings, List<LockContender> contenders, ReportCells cells) {
        this.settings = settings;
        this.contenders = contenders;
        this.results = cells.results();
        this.cells = cells;
    }

    void renderB() {
        if (!settings.workloads().contains("B")) {
            return;
        }
        cells.line("## B. Contended: 8 threads on one key");
        cells.line("");
        cells.line("Eight threads, each with its own client instance (separate connections, like separate processes), lock "
                + "and unlock the same key in a loop with nothing in between. Owner changes are acquisitions by a "
                + "different thread than the previous one (true hand-offs); wait is the time from asking to holding. "
                + "Fairness is Jain's index over the per-thread acquisition counts (1 = perfectly even). Every "
                + "acquisition checks that nobody else is inside; any violation fails the run.");
        cells.line("");
        cells.line("| contender | acquisitions/s | owner changes/s | wait p50 ms | wait p99 ms | wait p99.9 ms | fairness | "
                + "exclusion violations |");
        cells.line("|---|---|---|---|---|---|---|---|");
        for (LockContender c : contenders) {
            cells.row("B", c.name(), "acquisitions/s", "owner changes/s", "wait p50", "wait p99", "wait p99.9", "fairness",
                    "violations");
        }
        cells.line("");
    }

    void renderB1() {
        if (!settings.workloads().contains("B1")) {
            return;
        }
        cells.line("## B1. Contended inside one instance: one client, 8 threads on one key");
        cells.line("");
        cells.line("As B, but the eight threads share one client instance, as the threads of one application instance do "
                + "(distlock: one lock service; Redisson: one client; RedisLockRegistry: one registry). distlock hands "
                + "the lock from thread to thread inside the JVM (local hand-off) without a Redis round trip.");
        cells.line("");
        cells.line("| contender | acquisitions/s | owner changes/s | wait p50 ms | wait p99 ms | wait p99.9 ms | fairness | "
                + "exclusion violations |");
        cells.line("|---|---|---|---|---|---|---|---|");
        for (LockContender c : contenders) {
            cells.row("B1", c.name(), "acquisitions/s", "owner changes/s", "wait p50", "wait p99", "wait p99.9", "fairness",
                    "violations");
        }
        cells.line("");
    }

    void renderB2() {
        if (!settings.workloads().contains("B2")) {
            return;
        }
        cells.line("## B2. Contended across processes: N JVMs on one key");
        cells.line("");
        cells.line("N separate JVM processes (started by the harness with its own class path), each with one client "
                + "instance and one thread, lock and unlock the same key in a loop with nothing in between. Grants are "
                + "counted in grant order through a memory-mapped file the processes share, which also checks that "
                + "nobody else is inside (any violation fails the run). Owner changes are grants to a different "
                + "process than the previous grant; wait is asking to holding; *shares* are each process's part of "
                + "the grants, largest first; *min/max* is the smallest share ÷ the largest (1 = even; the fairness "
                + "target), *Jain* is (Σx)²/(n·Σx²) over the processes' grant counts (1 = even, 1/n = one process "
                + "gets all). ÷ Redisson is owner changes/s over Redisson's at the same N. *Failed calls* are lock calls "
                + "that threw inside the window; *failed warm-up calls* threw while each child, before the window, "
                + "locked a name of its own 50 times (first connection, script loading, JIT), as an application's "
                + "first calls after start would.");
        cells.line("");
        cells.line("| N | contender | acquisitions/s | owner changes/s | ÷ Redisson | wait p50 ms | wait p99 ms | "
                + "wait p99.9 ms | shares % | min/max | Jain | violations | failed calls | failed warm-up calls |");
        cells.line("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (int n : settings.processCounts()) {
            String m = ProcessWorkloads.handOff(n);
            for (LockContender c : contenders) {
                if (results.has(m, c.name(), "acquisitions/s")) {
                    cells.line("| " + n + " | " + cells.named(m, c.name()) + " | " + cells.cell(m, c.name(), "acquisitions/s") + " | "
                            + cells.cell(m, c.name(), "owner changes/s") + " | "
                            + cells.ratioCell(m, c.name(), Report.REDISSON, "owner changes/s") + " | "
                            + cells.cell(m, c.name(), "wait p50") + " | " + cells.cell(m, c.name(), "wait p99") + " | "
                            + cells.cell(m, c.name(), "wait p99.9") + " | " + cells.shares(m, c.name(), n) + " | "
                            + cells.cell(m, c.name(), "min/max") + " | " + cells.cell(m, c.name(), "jain") + " | "
                            + cells.cell(m, c.name(), "violations") + " | " + cells.cell(m, c.name(), "errors") + " | "
                            + cells.cell(m, c.name(), "warm-up failures") + " |");
                }
            }
        }
        cells.line("");
    }

    /** @return the median shares, largest first, e.g. {@code 50.2 / 49.8} */
    void renderG() {
        if (!settings.workloads().contains("G")) {
            return;
        }
        cells.line("## G. Hot key across JVMs: " + settings.hotJvms() + " JVMs × " + settings.hotThreads() + " threads, "
                + settings.hotWork().toNanos() / 1000 + " µs of work inside");
        cells.line("");
        cells.line(settings.hotJvms() + " separate JVM processes, each with one client instance shared by its "
                + settings.hotThreads() + " threads (one application node each), lock one key in a loop and hold it "
                + "for " + settings.hotWork().toNanos() / 1000 + " µs of busy work (spinning on `System.nanoTime()`, "
                + "not sleeping). Counting and the exclusion check as in B2. Owner changes are grants to a different "
                + "thread (of any JVM) than the previous grant; JVM changes are grants to another JVM than the "
                + "previous one; *JVM shares* are each JVM's part of the grants, largest first, and *min/max* the "
                + "smallest ÷ the largest; *thread Jain* is Jain's index over all " + settings.hotJvms()
                * settings.hotThreads() + " threads' grant counts.");
        cells.line("");
        cells.line("| contender | acquisitions/s | owner changes/s | ÷ Redisson | JVM changes/s | wait p50 ms | wait p99 ms | "
                + "wait p99.9 ms | JVM shares % | min/max | thread Jain | violations | failed calls | failed warm-up calls |");
        cells.line("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (LockContender c : contenders) {
            if (results.has("G", c.name(), "acquisitions/s")) {
                cells.line("| " + cells.named("G", c.name()) + " | " + cells.cell("G", c.name(), "acquisitions/s") + " | "
                        + cells.cell("G", c.name(), "owner changes/s") + " | "
                        + cells.ratioCell("G", c.name(), Report.REDISSON, "owner changes/s") + " | "
                        + cells.cell("G", c.name(), "jvm changes/s") + " | " + cells.cell("G", c.name(), "wait p50") + " | "
                        + cells.cell("G", c.name(), "wait p99") + " | " + cells.cell("G", c.name(), "wait p99.9") + " | "
                        + cells.shares("G", c.name(), settings.hotJvms()) + " | " + cells.cell("G", c.name(), "min/max") + " | "
                        + cells.cell("G", c.name(), "thread jain") + " | " + cells.cell("G", c.name(), "violations") + " | "
                        + cells.cell("G", c.name(), "errors") + " | " + cells.cell("G", c.name(), "warm-up failures") + " |");
            }
        }
        cells.line("");
    }

    void renderP() {
        if (!settings.workloads().contains("P")) {
            return;
        }
        cells.line("## P. Permits: 8 JVM-like clients on one key, " + Workloads.PERMIT_WORK.toMillis() + " ms of work inside");
        cells.line("");
        cells.line("Eight threads, each with its own client instance, take one permit of one key (1 permit is a lock), "
                + "work " + Workloads.PERMIT_WORK.toMillis() + " ms inside and release it, in a loop. Every grant "
                + "checks that no more than the permits are inside at once; any violation fails the run. \"÷ 1 permit\" "
                + "is the grants/s against the same contender's with one permit.");
        cells.line("");
        cells.line("| contender | permits | grants/s | ÷ 1 permit | wait p50 ms | wait p99 ms | fairness | violations |");
        cells.line("|---|---|---|---|---|---|---|---|");
        for (LockContender c : contenders) {
            for (int permits : List.of(1, 3)) {
                String measurement = Workloads.permits(permits);
                if (!results.has(measurement, c.name(), "acquisitions/s")) {
                    continue;
                }
                cells.line("| " + cells.named(measurement, c.name()) + " | " + permits + " | "
                        + cells.cell(measurement, c.name(), "acquisitions/s") + " | "
                        + ratioOf(measurement, Workloads.permits(1), c.name(), "acquisitions/s") + " | "
                        + cells.cell(measurement, c.name(), "wait p50") + " | " + cells.cell(measurement, c.name(), "wait p99")
                        + " | " + cells.cell(measurement, c.name(), "fairness") + " | "
                        + cells.cell(measurement, c.name(), "violations") + " |");
            }
        }
        cells.line("");
    }

    /** @return the contender's median in one measurement ÷ its median in another, or "–" */
    private String ratioOf(String measurement, String reference, String contender, String metric) {
        if (!results.has(reference, contender, metric)) {
            return "–";
        }
        return fmt(results.median(measurement, contender, metric) / results.median(reference, contender, metric));
    }
}
