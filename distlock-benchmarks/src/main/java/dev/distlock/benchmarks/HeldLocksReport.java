package dev.distlock.benchmarks;

import java.util.List;
import java.util.Map;

import org.redisson.config.Config;

import dev.distlock.core.LockConfig;

/**
 * The report's section for workload L ({@link HeldLocksWorkload}): one row per contender, distlock ÷ Redisson per
 * column, and the targets (heap and Redis bytes per held lock and renewal traffic each ≤ Redisson's).
 */
final class HeldLocksReport {

    private static final String L = HeldLocksWorkload.MEASUREMENT;

    private final Results results;

    private final List<LockContender> contenders;

    private final ReportCells cells;

    HeldLocksReport(List<LockContender> contenders, ReportCells cells) {
        this.results = cells.results();
        this.contenders = contenders;
        this.cells = cells;
    }

    void render() {
        List<String> measured = contenders.stream().map(LockContender::name)
                .filter(name -> results.has(L, name, "held")).toList();
        if (measured.isEmpty()) {
            return;
        }
        cells.line("## L. Many held locks (issue 40)");
        cells.line("");
        cells.line("One client holds the locks on distinct names, taken by " + HeldLockOwners.THREADS
                + " threads and kept (distlock: the `LockHandle`s, Redisson: the `RLock`s after `lock()` without a "
                + "lease time), with each library's default watchdog (" + watchdogs() + "). One more lock, held "
                + "from before the warm-up to the end, keeps each watchdog running throughout (Redisson leaves one "
                + "renewal chain per lock-unlock cycle of an otherwise idle client, see `HeldLocksWorkload`). Per "
                + "contender, on an emptied server: *heap B/lock* is the "
                + "JVM's used heap after full GCs with the locks held minus before (client connected and warmed up, "
                + "the names already made), ÷ held; *Redis B/lock* the same with `used_memory`; then over a quiet "
                + "window of " + seconds() + " s, per second: *renewal requests* (script calls of `INFO "
                + "commandstats`: one per renewal batch), *Redis commands* (every call, those scripts make "
                + "included) and *Redis CPU* (`used_cpu_sys + used_cpu_user`); then acquire + release of fresh "
                + "names on one thread for as long again, while the locks are held (*held*), against the same "
                + "before the locks were taken (*idle*, 5,000 cycles). Finally every lock is released; *failed* "
                + "acquires, locks *lost* while held (their key gone from Redis, or the library no longer holding them: "
                + "distlock's `isHeld()`, Redisson's `isLocked()`) and keys *left* after the release fail the run.");
        cells.line("");
        cells.line("| contender | held | heap B/lock | Redis B/lock | keys/lock | renewal requests/s | Redis "
                + "commands/s | Redis CPU ms/s | idle p50 / p99 µs | held p50 / p99 / max µs | failed / lost / left |");
        cells.line("|---|---|---|---|---|---|---|---|---|---|---|");
        for (String name : measured) {
            cells.line("| " + name + " | " + cell(name, "held") + " | " + cell(name, "heap B/lock") + " | "
                    + cell(name, "redis B/lock") + " | " + cell(name, "keys/lock") + " | "
                    + cell(name, "renewal requests/s") + " | " + cell(name, "commands/s") + " | "
                    + cell(name, "redis cpu ms/s") + " | " + cell(name, "idle p50") + " / " + cell(name, "idle p99")
                    + " | " + cell(name, "held p50") + " / " + cell(name, "held p99") + " / "
                    + cell(name, "held max") + " | " + cell(name, "failed acquires") + " / "
                    + cell(name, "lost") + " / " + cell(name, "leftover keys") + " |");
        }
        boolean both = measured.contains(Report.DISTLOCK) && measured.contains(Report.REDISSON);
        if (both) {
            StringBuilder row = new StringBuilder("| distlock ÷ Redisson | |");
            for (String metric : List.of("heap B/lock", "redis B/lock", "keys/lock", "renewal requests/s",
                    "commands/s", "redis cpu ms/s")) {
                row.append(' ').append(ReportCells.fmt(ratio(metric))).append(" |");
            }
            row.append(" | ").append(ReportCells.fmt(ratio("held p50"))).append(" / ")
                    .append(ReportCells.fmt(ratio("held p99"))).append(" | |");
            cells.line(row.toString());
        }
        cells.line("");
        for (String name : measured) {
            cells.line("- " + name + ": " + ReportCells.fmt(results.median(L, name, "acquires/s")) + " acquires/s while "
                    + "taking them; " + ReportCells.fmt(results.median(L, name, "requests/lock/s") * 1000) + " renewal "
                    + "requests per 1,000 held locks per second; " + ReportCells.fmt(results.median(L, name, "held cycles")) + " cycles "
                    + "while held; the window's calls: " + ReportCells.nullToEmpty(results.note(L, name)) + ".");
        }
        cells.line("");
        if (both) {
            cells.line("| target (issue 40) | distlock ÷ Redisson | met |");
            cells.line("|---|---|---|");
            for (Map.Entry<String, String> target : Map.of("heap B/lock", "heap bytes per held lock ≤ Redisson's",
                    "redis B/lock", "Redis bytes per held lock ≤ Redisson's", "renewal requests/s",
                    "renewal requests per second ≤ Redisson's").entrySet().stream()
                    .sorted(Map.Entry.comparingByKey()).toList()) {
                double ratio = ratio(target.getKey());
                cells.line("| " + target.getValue() + " | " + ReportCells.fmt(ratio) + " | "
                        + (Double.isNaN(ratio) ? "–" : ratio <= 1 ? "yes" : "**no**") + " |");
            }
            cells.line("");
        }
    }

    /** @return both libraries' default watchdogs, read from the libraries, since renewal traffic follows them */
    private static String watchdogs() {
        Config redisson = new Config();
        long distlockLease = LockConfig.defaults().leaseTime().toMillis();
        return "distlock: lease " + distlockLease / 1000 + " s, renewed every lease ÷ 3 ≈ " + distlockLease / 3000
                + " s, up to 500 leases per `renew.lua` call" // StoreCalls.RENEWAL_BATCH, not visible here
                + "; Redisson: `lockWatchdogTimeout` "
                + redisson.getLockWatchdogTimeout() / 1000 + " s, renewed every timeout ÷ 3 ≈ "
                + redisson.getLockWatchdogTimeout() / 3000 + " s, up to `lockWatchdogBatchSize` "
                + redisson.getLockWatchdogBatchSize() + " locks per script call";
    }

    private String seconds() {
        return contenders.stream().map(LockContender::name).filter(name -> results.has(L, name, "window s"))
                .findFirst().map(name -> ReportCells.fmt(results.median(L, name, "window s"))).orElse("?");
    }

    private double ratio(String metric) {
        return results.median(L, Report.DISTLOCK, metric) / results.median(L, Report.REDISSON, metric);
    }

    /** @return the median, with [min–max] when there are several repeats */
    private String cell(String contender, String metric) {
        List<Double> all = results.all(L, contender, metric);
        if (all.isEmpty()) {
            return "–";
        }
        String median = ReportCells.fmt(results.median(L, contender, metric));
        return all.size() == 1 ? median : median + " [" + ReportCells.fmt(results.min(L, contender, metric)) + "–"
                + ReportCells.fmt(results.max(L, contender, metric)) + "]";
    }
}
