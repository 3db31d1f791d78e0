package dev.distlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/** Renders the results of a run as Markdown ({@code docs/benchmarks.md}). */
final class Report {

    static final String DISTLOCK = "distlock LockService";

    static final String DISTLOCK_ANNOTATION = "distlock @DistributedLock";

    static final String COMMAND = "./mvnw -B -q -pl distlock-benchmarks -am package -DskipTests && "
            + "java -jar distlock-benchmarks/target/distlock-benchmarks.jar";

    private final Settings settings;

    private final List<LockContender> contenders;

    private final Results results;

    private final Environment environment;

    private final String args;

    private final StringBuilder md = new StringBuilder();

    Report(Settings settings, List<LockContender> contenders, Results results, Environment environment, String args) {
        this.settings = settings;
        this.contenders = contenders;
        this.results = results;
        this.environment = environment;
        this.args = args;
    }

    /**
     * The machine and software of a run.
     *
     * @param cpu CPU model and count
     * @param memory total memory
     * @param os operating system
     * @param jvm Java runtime
     * @param redis Redis version and where it ran
     * @param loadAverage load average when the run started
     * @param date when the run started
     * @param note free text from {@code --note}
     * @param duration how long the run took
     */
    record Environment(String cpu, String memory, String os, String jvm, String redis, String loadAverage,
            String date, String note, Duration duration) {

        static Environment capture(RedisProbe probe, RedisTarget target, boolean embedded, String note) {
            String cpu = Runtime.getRuntime().availableProcessors() + " CPUs";
            String memory = "?";
            String load = "?";
            try {
                cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
                        .findFirst().map(l -> l.substring(l.indexOf(':') + 1).trim()).orElse("?") + ", "
                        + Runtime.getRuntime().availableProcessors() + " CPUs available to the JVM";
                memory = Files.readAllLines(Path.of("/proc/meminfo")).get(0).replaceAll("MemTotal:\\s+", "");
                load = Files.readString(Path.of("/proc/loadavg")).trim();
            }
            catch (Exception ex) {
                // not Linux: keep what the JVM says
            }
            String redis = "Redis " + probe.info("server", "redis_version") + " ("
                    + (embedded ? "embedded redis-server started by the harness, same machine"
                            : "--redis " + target)
                    + ")";
            return new Environment(cpu, memory, System.getProperty("os.name") + " " + System.getProperty("os.version")
                    + " " + System.getProperty("os.arch"), System.getProperty("java.vm.name") + " "
                            + System.getProperty("java.runtime.version") + ", "
                            + ManagementFactory.getRuntimeMXBean().getInputArguments(),
                    redis, load, ZonedDateTime.now().format(DateTimeFormatter.RFC_1123_DATE_TIME), note, null);
        }

        Environment withDuration(Duration duration) {
            return new Environment(cpu, memory, os, jvm, redis, loadAverage, date, note, duration);
        }
    }

    String render() {
        line("# distlock benchmarks");
        line("");
        line("distlock side by side with Redisson `RLock`, Spring Integration `RedisLockRegistry` (spin and pub/sub) and "
                + "a textbook `SET NX PX` lock, in one run on one Redis server, with library defaults. "
                + "Every number is the **median [min–max] of " + settings.repeats() + " repeats**, interleaved across "
                + "contenders (the order rotates every repeat).");
        line("");
        if (environment.note() != null) {
            line("> " + environment.note());
            line("");
        }
        line("Reproduce (needs only a JDK 17+; the harness starts its own `redis-server`, or pass `--redis host:port`):");
        line("");
        line("```bash");
        line(COMMAND + (args.isBlank() ? "" : " " + args));
        line("```");
        line("");
        line("`--seconds N` (per measurement, default 10), `--warmup N` (default 3), `--repeats N` (default 3), "
                + "`--quick` (short smoke run), `--contenders " + String.join(",", BenchmarkMain.allContenders().keySet())
                + "`, `--workloads A,B,C,D,E,F`, `--out FILE`.");
        line("");
        renderSummary();
        renderEnvironment();
        renderA();
        renderB();
        renderC();
        renderD();
        renderE();
        renderF();
        renderMethod();
        return md.toString();
    }

    // ------------------------------------------------------------------ summary

    private record Ratio(String label, double value, String target, Boolean met) {
    }

    private void renderSummary() {
        List<Ratio> ratios = new ArrayList<>();
        String a64 = Workloads.uncontended(64);
        double distlock64 = results.median(a64, DISTLOCK, "cycles/s");
        ratios.add(ratio("A64 cycles/s: distlock / Redisson", distlock64, results.median(a64, "Redisson RLock", "cycles/s"), 3));
        ratios.add(ratio("A64 cycles/s: distlock / RedisLockRegistry spin", distlock64,
                results.median(a64, "RedisLockRegistry spin", "cycles/s"), 1.5));
        ratios.add(ratio("A64 cycles/s: distlock / RedisLockRegistry pub/sub", distlock64,
                results.median(a64, "RedisLockRegistry pub/sub", "cycles/s"), 1.5));
        ratios.add(ratio("A64 cycles/s: distlock / textbook", distlock64,
                results.median(a64, "SET NX PX (textbook)", "cycles/s"), Double.NaN));
        ratios.add(ratio("A64 cycles/s: distlock / Redis ceiling", distlock64,
                results.median("D", Workloads.CEILING, "cycles/s"), 0.85));
        ratios.add(ratio("B owner changes/s: distlock / Redisson", results.median("B", DISTLOCK, "owner changes/s"),
                results.median("B", "Redisson RLock", "owner changes/s"), 1.5));
        ratios.removeIf(r -> Double.isNaN(r.value()));

        line("## Summary");
        line("");
        if (!ratios.isEmpty()) {
            line("Key ratios (medians; the bar is the ratio, `|` marks the target):");
            line("");
            line("```text");
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
                line(String.format(Locale.ROOT, "%-" + labelWidth + "s %s %.2f×", r.label(), bar, r.value()));
            }
            line("```");
            line("");
        }
        line("| target (2-core machine) | measured | met |");
        line("|---|---|---|");
        for (Ratio r : ratios) {
            if (r.target() != null) {
                line("| " + r.label() + " ≥ " + r.target() + "× | " + fmt(r.value()) + "× | " + yes(r.met()) + " |");
            }
        }
        targetRow("A64 distlock client CPU per cycle ≤ 50 µs", a64, DISTLOCK, "cpu", "µs", v -> v <= 50);
        targetRow("B distlock wait p99 ≤ 10 ms", "B", DISTLOCK, "wait p99", "ms", v -> v <= 10);
        targetRow("B distlock fairness ≥ 0.9", "B", DISTLOCK, "fairness", "", v -> v >= 0.9);
        targetRow("C distlock requests per uncontended cycle = 2", "C", DISTLOCK, "requests", "", v -> v <= 2.005);
        targetRow("E distlock renewal requests per lock per second ≤ 0.02", "E", DISTLOCK, "requests/lock/s", "",
                v -> v <= 0.02);
        targetRow("F annotation overhead ≤ 5 µs per call", "F", DISTLOCK_ANNOTATION, "overhead", "µs", v -> v <= 5);
        line("");
    }

    private Ratio ratio(String label, double numerator, double denominator, double target) {
        double value = numerator / denominator;
        return new Ratio(label, value, Double.isNaN(target) ? null : trim(target),
                Double.isNaN(target) || Double.isNaN(value) ? null : value >= target);
    }

    private void targetRow(String label, String measurement, String contender, String metric, String unit,
            java.util.function.DoublePredicate met) {
        if (!results.has(measurement, contender, metric)) {
            return;
        }
        double value = results.median(measurement, contender, metric);
        line("| " + label + " | " + fmt(value) + (unit.isEmpty() ? "" : " " + unit) + " | " + yes(met.test(value))
                + " |");
    }

    private static String yes(Boolean met) {
        return met == null ? "" : met ? "yes" : "**no**";
    }

    // ------------------------------------------------------------------ sections

    private void renderEnvironment() {
        line("## Machine and versions");
        line("");
        line("| | |");
        line("|---|---|");
        line("| date | " + environment.date() + " |");
        line("| CPU | " + environment.cpu() + " |");
        line("| memory | " + environment.memory() + " |");
        line("| load average at start | " + environment.loadAverage() + " |");
        line("| OS | " + environment.os() + " |");
        line("| JVM | " + environment.jvm() + " |");
        line("| Redis | " + environment.redis() + " |");
        for (LockContender contender : contenders) {
            line("| " + contender.name() + " | " + contender.version() + " |");
        }
        line("| run length | " + (environment.duration() == null ? "?" : environment.duration().toSeconds() + " s")
                + " (" + settings.warmup().toSeconds() + " s warm-up + " + settings.measure().toSeconds()
                + " s per timed measurement) |");
        line("");
    }

    private void renderA() {
        if (!settings.workloads().contains("A")) {
            return;
        }
        line("## A. Uncontended lock + unlock, a new key every cycle");
        line("");
        line("One client instance shared by N threads; each thread locks and unlocks a key never used before, as fast "
                + "as it can. Latency is one lock + unlock cycle. Client CPU is the JVM's process CPU time during the "
                + "measurement divided by the cycles (the Redis server's CPU is not in it).");
        line("");
        for (int threads : settings.threadCounts()) {
            String m = Workloads.uncontended(threads);
            line("### " + threads + (threads == 1 ? " thread" : " threads"));
            line("");
            line("| contender | cycles/s | p50 µs | p99 µs | p99.9 µs | client CPU µs/cycle |");
            line("|---|---|---|---|---|---|");
            for (LockContender c : contenders) {
                row(m, c.name(), "cycles/s", "p50", "p99", "p99.9", "cpu");
            }
            if (threads == 64 && results.has("D", Workloads.CEILING, "cycles/s")) {
                line("| " + Workloads.CEILING + " (see D) | " + cell("D", Workloads.CEILING, "cycles/s")
                        + " | | | | |");
            }
            line("");
        }
    }

    private void renderB() {
        if (!settings.workloads().contains("B")) {
            return;
        }
        line("## B. Contended: 8 threads on one key");
        line("");
        line("Eight threads, each with its own client instance (separate connections, like separate processes), lock "
                + "and unlock the same key in a loop with nothing in between. Owner changes are acquisitions by a "
                + "different thread than the previous one (true hand-offs); wait is the time from asking to holding. "
                + "Fairness is Jain's index over the per-thread acquisition counts (1 = perfectly even). Every "
                + "acquisition checks that nobody else is inside; any violation fails the run.");
        line("");
        line("| contender | acquisitions/s | owner changes/s | wait p50 ms | wait p99 ms | wait p99.9 ms | fairness | "
                + "exclusion violations |");
        line("|---|---|---|---|---|---|---|---|");
        for (LockContender c : contenders) {
            row("B", c.name(), "acquisitions/s", "owner changes/s", "wait p50", "wait p99", "wait p99.9", "fairness",
                    "violations");
        }
        line("");
    }

    private void renderC() {
        if (!settings.workloads().contains("C")) {
            return;
        }
        line("## C. Redis traffic per uncontended lock + unlock");
        line("");
        line("One thread, " + settings.trafficCycles() + " cycles on new keys after a warm-up. Requests are the "
                + "commands clients sent (counted with `MONITOR`, script-internal calls excluded); commands are "
                + "`INFO commandstats` call deltas (scripts' `redis.call`s included), and `total_commands_processed` "
                + "its delta.");
        line("");
        line("| contender | requests/cycle | commands/cycle | total_commands_processed/cycle | breakdown per cycle |");
        line("|---|---|---|---|---|");
        for (LockContender c : contenders) {
            if (results.has("C", c.name(), "requests")) {
                line("| " + c.name() + " | " + cell("C", c.name(), "requests") + " | " + cell("C", c.name(), "commands")
                        + " | " + cell("C", c.name(), "total_commands_processed") + " | "
                        + nullToEmpty(results.note("C", c.name())) + " |");
            }
        }
        line("");
    }

    private void renderD() {
        if (!settings.workloads().contains("D")) {
            return;
        }
        line("## D. The ceiling: what this Redis can do");
        line("");
        line("As `redis-benchmark -c 64 -P 1` measures a server: 64 clients, each on its own Lettuce connection "
                + "with one request in flight (callbacks on Lettuce's I/O threads, like redis-benchmark's event loop), "
                + "run an acquire-like script (`SET key token NX PX`) and then a release-like script (compare and "
                + "`DEL`) per new key. One ceiling cycle = those two scripts: the least Redis "
                + "work and round trips a lock + unlock can be, with no locking logic in the client. Read A's "
                + "cycles/s as a fraction of this.");
        line("");
        line("| | EVALSHA/s | cycles/s |");
        line("|---|---|---|");
        line("| " + Workloads.CEILING + " | " + cell("D", Workloads.CEILING, "evalsha/s") + " | "
                + cell("D", Workloads.CEILING, "cycles/s") + " |");
        line("");
    }

    private void renderE() {
        if (!settings.workloads().contains("E")) {
            return;
        }
        line("## E. Watchdog cost: " + settings.watchdogLocks() + " locks held " + settings.watchdogHold().toSeconds()
                + " s with a " + settings.watchdogLease().toSeconds() + " s lease");
        line("");
        line("One client takes " + settings.watchdogLocks() + " locks with a watchdog-renewed lease of "
                + settings.watchdogLease().toSeconds() + " s (Redisson: `lockWatchdogTimeout`; RedisLockRegistry: "
                + "`expireAfter` plus its renewal scheduler, which is off by default; distlock: `lease-time`) and "
                + "holds them. Requests are everything clients sent during the hold (MONITOR); alive = locks whose "
                + "key still has a TTL in Redis and that the library still reports held, at the end. The textbook "
                + "lock has no renewal and is left out.");
        line("");
        line("| contender | requests/s | requests per lock per s | commands/s | alive at the end | requests |");
        line("|---|---|---|---|---|---|");
        for (LockContender c : contenders) {
            if (results.has("E", c.name(), "requests/s")) {
                line("| " + c.name() + " | " + cell("E", c.name(), "requests/s") + " | "
                        + cell("E", c.name(), "requests/lock/s") + " | " + cell("E", c.name(), "commands/s") + " | "
                        + cell("E", c.name(), "alive") + " of " + settings.watchdogLocks() + " | "
                        + nullToEmpty(results.note("E", c.name())) + " |");
            }
        }
        line("");
    }

    private void renderF() {
        if (!settings.workloads().contains("F")) {
            return;
        }
        line("## F. Annotation overhead");
        line("");
        if (!results.has("F", DISTLOCK_ANNOTATION, "overhead")) {
            line("Not measured in this run (the annotation was not available).");
            line("");
            return;
        }
        line(nullToEmpty(results.note("F", DISTLOCK_ANNOTATION)));
        line("");
        line("| | per call µs |");
        line("|---|---|");
        for (String metric : List.of("programmatic", "annotated", "overhead", "redis programmatic", "redis annotated",
                "redis overhead")) {
            if (results.has("F", DISTLOCK_ANNOTATION, metric)) {
                line("| " + metric + " | " + cell("F", DISTLOCK_ANNOTATION, metric) + " |");
            }
        }
        line("");
    }

    private void renderMethod() {
        line("## How to read this");
        line("");
        line("- All contenders run in one JVM, one after the other (never at the same time), against the same server; "
                + "each measurement creates its client(s), warms up, measures, and closes them.");
        line("- Library defaults everywhere (connection pools, codecs, timeouts); only the watchdog lease in E is set.");
        line("- The harness JVM and redis-server share the machine: on 2 cores the client's CPU use takes CPU away from "
                + "Redis, which is why client CPU per cycle matters for throughput.");
        line("- Noise: repeat counts and the [min–max] spread are shown; trust ratios within one run more than "
                + "absolute numbers across machines.");
        line("");
    }

    // ------------------------------------------------------------------ cells

    private void row(String measurement, String contender, String... metrics) {
        if (!results.has(measurement, contender, metrics[0])) {
            return;
        }
        String note = results.note(measurement, contender);
        StringBuilder row = new StringBuilder("| " + contender + (note == null ? "" : " (" + note + ")") + " |");
        for (String metric : metrics) {
            row.append(' ').append(cell(measurement, contender, metric)).append(" |");
        }
        line(row.toString());
    }

    private String cell(String measurement, String contender, String metric) {
        if (!results.has(measurement, contender, metric)) {
            return "–";
        }
        double median = results.median(measurement, contender, metric);
        if (results.all(measurement, contender, metric).size() == 1) {
            return fmt(median);
        }
        return fmt(median) + " [" + fmt(results.min(measurement, contender, metric)) + "–"
                + fmt(results.max(measurement, contender, metric)) + "]";
    }

    static String fmt(double value) {
        if (Double.isNaN(value)) {
            return "–";
        }
        double abs = Math.abs(value);
        if (abs >= 1000) {
            return String.format(Locale.ROOT, "%,.0f", value);
        }
        if (abs >= 100) {
            return String.format(Locale.ROOT, "%.0f", value);
        }
        if (abs >= 10) {
            return String.format(Locale.ROOT, "%.1f", value);
        }
        if (abs >= 0.1 || abs == 0) {
            return String.format(Locale.ROOT, "%.2f", value);
        }
        return String.format(Locale.ROOT, "%.3f", value);
    }

    private static String trim(double value) {
        return value == Math.rint(value) ? String.valueOf((long) value) : String.valueOf(value);
    }

    private static String nullToEmpty(String text) {
        return text == null ? "" : text;
    }

    private void line(String text) {
        md.append(text).append('\n');
    }
}
