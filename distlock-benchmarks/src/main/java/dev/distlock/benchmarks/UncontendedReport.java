package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;

import static dev.distlock.benchmarks.ReportCells.fmt;
import static dev.distlock.benchmarks.ReportCells.nullToEmpty;

/**
 * The report's uncontended sections on Redis: A (lock + unlock of a new name, each contender), Redis CPU per cycle,
 * C (Redis traffic per cycle), D (what this Redis can do) and M (two names per cycle).
 */
final class UncontendedReport {

    private final Settings settings;

    private final List<LockContender> contenders;

    private final Results results;

    private final ReportCells cells;

    UncontendedReport(Settings settings, List<LockContender> contenders, ReportCells cells) {
        this.settings = settings;
        this.contenders = contenders;
        this.results = cells.results();
        this.cells = cells;
    }

    void renderA() {
        if (!settings.workloads().contains("A")) {
            return;
        }
        cells.line("## A. Uncontended lock + unlock, a new key every cycle");
        cells.line("");
        cells.line("One client instance shared by N threads; each thread locks and unlocks a key never used before, as fast "
                + "as it can. Latency is one lock + unlock cycle. Client CPU is the JVM's process CPU time during the "
                + "measurement divided by the cycles (the Redis server's CPU is not in it).");
        cells.line("");
        for (int threads : settings.threadCounts()) {
            String m = Workloads.uncontended(threads);
            cells.line("### " + threads + (threads == 1 ? " thread" : " threads"));
            cells.line("");
            cells.line("| contender | cycles/s | ÷ textbook | p50 µs | p99 µs | p99.9 µs | client CPU µs/cycle |");
            cells.line("|---|---|---|---|---|---|---|");
            for (LockContender c : contenders) {
                if (results.has(m, c.name(), "cycles/s")) {
                    cells.line("| " + cells.named(m, c.name()) + " | " + cells.cell(m, c.name(), "cycles/s") + " | "
                            + cells.ratioCell(m, c.name(), Report.TEXTBOOK, "cycles/s") + " | " + cells.cell(m, c.name(), "p50") + " | "
                            + cells.cell(m, c.name(), "p99") + " | " + cells.cell(m, c.name(), "p99.9") + " | "
                            + cells.cell(m, c.name(), "cpu") + " |");
                }
            }
            if (threads == 64 && results.has("D", Workloads.CEILING, "cycles/s")) {
                cells.line("| " + Workloads.CEILING + " (see D) | " + cells.cell("D", Workloads.CEILING, "cycles/s")
                        + " | " + fmt(results.median("D", Workloads.CEILING, "cycles/s")
                                / results.median(m, Report.TEXTBOOK, "cycles/s")) + " | | | | |");
            }
            cells.line("");
        }
    }

    /**
     * Redis CPU per cycle of workload A. {@code INFO commandstats} counts a command called from a script twice (in
     * the script's EVAL/EVALSHA time and under its own name), so besides the plain sum the table gives the time of
     * what clients sent: each command's time weighted by the share of its calls that clients sent, as workload C
     * counted them with MONITOR for the same cycle (scripts always count whole).
     */
    void renderRedisCpu() {
        if (!settings.workloads().contains("A")) {
            return;
        }
        cells.line("### Redis server CPU per uncontended cycle");
        cells.line("");
        cells.line("The server's work per lock + unlock cycle during the timed part of A. *Requests µs* is the "
                + "`INFO commandstats` time of what clients sent (each command's `usec` weighted by the share of its "
                + "calls that clients sent, from C's `MONITOR` counts; needs C in the run); *Σ usec* is the plain sum of "
                + "`usec` over all commands, in which a command called from a script counts twice (inside the "
                + "script's `EVALSHA` and under its own name); *INFO cpu* is the delta of `used_cpu_sys + "
                + "used_cpu_user` (the whole server process: parsing, networking, scripts). Ratios are to the "
                + "textbook lock at the same thread count.");
        cells.line("");
        cells.line("| threads | contender | requests µs/cycle | ÷ textbook | Σ usec µs/cycle | INFO cpu µs/cycle | ÷ textbook |");
        cells.line("|---|---|---|---|---|---|---|");
        for (int threads : settings.threadCounts()) {
            String m = Workloads.uncontended(threads);
            double textbookRequests = requestUsec(m, Report.TEXTBOOK);
            for (LockContender c : contenders) {
                if (!results.has(m, c.name(), "redis cpu")) {
                    continue;
                }
                double requests = requestUsec(m, c.name());
                cells.line("| " + threads + " | " + c.name() + " | " + fmt(requests) + " | " + fmt(requests / textbookRequests)
                        + " | " + cells.cell(m, c.name(), "redis usec") + " | " + cells.cell(m, c.name(), "redis cpu") + " | "
                        + cells.ratioCell(m, c.name(), Report.TEXTBOOK, "redis cpu") + " |");
            }
        }
        cells.line("");
        int threads = settings.threadCounts().get(0);
        String m = Workloads.uncontended(threads);
        cells.line("Where the server's time goes at " + threads + (threads == 1 ? " thread" : " threads")
                + ": `INFO commandstats` µs per cycle by command (a script's own commands are inside its `evalsha` "
                + "time and listed again under their names).");
        cells.line("");
        cells.line("| contender | µs/cycle by command |");
        cells.line("|---|---|");
        for (LockContender c : contenders) {
            List<String> parts = new ArrayList<>();
            results.metrics(m, c.name()).stream().filter(metric -> metric.startsWith("usec "))
                    .sorted((a, b) -> Double.compare(results.median(m, c.name(), b), results.median(m, c.name(), a)))
                    .filter(metric -> results.median(m, c.name(), metric) >= 0.05)
                    .forEach(metric -> parts.add(metric.substring("usec ".length()) + " "
                            + fmt(results.median(m, c.name(), metric))));
            if (!parts.isEmpty()) {
                cells.line("| " + c.name() + " | " + String.join(", ", parts) + " |");
            }
        }
        cells.line("");
    }

    /** @return commandstats µs per cycle of what clients sent (NaN without C's shares) */
    private double requestUsec(String measurement, String contender) {
        if (!results.has("C", contender, "requests")) {
            return Double.NaN;
        }
        double total = 0;
        for (String metric : results.metrics(measurement, contender)) {
            if (!metric.startsWith("usec ")) {
                continue;
            }
            String command = metric.substring("usec ".length());
            boolean script = command.startsWith("eval") || command.startsWith("fcall");
            double share = script || !results.has("C", contender, "client share " + command) ? 1
                    : results.median("C", contender, "client share " + command);
            total += results.median(measurement, contender, metric) * share;
        }
        return total;
    }

    void renderC() {
        if (!settings.workloads().contains("C")) {
            return;
        }
        cells.line("## C. Redis traffic per uncontended lock + unlock");
        cells.line("");
        cells.line("One thread, " + settings.trafficCycles() + " cycles on new keys after a warm-up. Requests are the "
                + "commands clients sent (counted with `MONITOR`, script-internal calls excluded); commands are "
                + "`INFO commandstats` call deltas (scripts' `redis.call`s included), and `total_commands_processed` "
                + "its delta.");
        cells.line("");
        cells.line("| contender | requests/cycle | commands/cycle | total_commands_processed/cycle | breakdown per cycle |");
        cells.line("|---|---|---|---|---|");
        for (LockContender c : contenders) {
            if (results.has("C", c.name(), "requests")) {
                cells.line("| " + c.name() + " | " + cells.cell("C", c.name(), "requests") + " | " + cells.cell("C", c.name(), "commands")
                        + " | " + cells.cell("C", c.name(), "total_commands_processed") + " | "
                        + nullToEmpty(results.note("C", c.name())) + " |");
            }
        }
        cells.line("");
    }

    void renderD() {
        if (!settings.workloads().contains("D")) {
            return;
        }
        cells.line("## D. The ceiling: what this Redis can do");
        cells.line("");
        cells.line("As `redis-benchmark -c 64 -P 1` measures a server: 64 clients, each on its own Lettuce connection "
                + "with one request in flight (callbacks on Lettuce's I/O threads, like redis-benchmark's event loop), "
                + "run an acquire-like script (`SET key token NX PX`) and then a release-like script (compare and "
                + "`DEL`) per new key. One ceiling cycle = those two scripts: the least Redis "
                + "work and round trips a lock + unlock can be, with no locking logic in the client. Read A's "
                + "cycles/s as a fraction of this.");
        cells.line("");
        cells.line("| | EVALSHA/s | cycles/s |");
        cells.line("|---|---|---|");
        cells.line("| " + Workloads.CEILING + " | " + cells.cell("D", Workloads.CEILING, "evalsha/s") + " | "
                + cells.cell("D", Workloads.CEILING, "cycles/s") + " |");
        cells.line("");
    }

    void renderM() {
        if (!settings.workloads().contains("M")) {
            return;
        }
        cells.line("## M. Several names at once: two new names per cycle, uncontended");
        cells.line("");
        cells.line("Every cycle locks two names no other cycle uses and unlocks them: with the library's own multi-lock "
                + "(distlock `executeWithLocks`, sorted, all or none; Redisson `RedissonMultiLock`), and with the same "
                + "two locks taken one after the other. \"multi ÷ one by one\" is what taking the names together "
                + "costs over two plain locks (1 = nothing).");
        cells.line("");
        for (int threads : List.of(1, 8)) {
            String measurement = Workloads.multiName(threads);
            cells.line("### " + threads + (threads == 1 ? " thread" : " threads"));
            cells.line("");
            cells.line("| contender | multi cycles/s | one by one cycles/s | multi ÷ one by one | multi p50 µs | multi p99 µs "
                    + "| one by one p50 µs | one by one p99 µs |");
            cells.line("|---|---|---|---|---|---|---|---|");
            for (LockContender c : contenders) {
                if (!results.has(measurement, c.name(), "one by one cycles/s")) {
                    continue;
                }
                double ratio = results.median(measurement, c.name(), "multi cycles/s")
                        / results.median(measurement, c.name(), "one by one cycles/s");
                cells.line("| " + cells.named(measurement, c.name()) + " | " + cells.cell(measurement, c.name(), "multi cycles/s") + " | "
                        + cells.cell(measurement, c.name(), "one by one cycles/s") + " | "
                        + (Double.isNaN(ratio) ? "—" : fmt(ratio)) + " | "
                        + cells.cell(measurement, c.name(), "multi p50") + " | " + cells.cell(measurement, c.name(), "multi p99")
                        + " | " + cells.cell(measurement, c.name(), "one by one p50") + " | "
                        + cells.cell(measurement, c.name(), "one by one p99") + " |");
            }
            cells.line("");
        }
    }
}
