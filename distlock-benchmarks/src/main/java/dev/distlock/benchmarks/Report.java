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

/** Renders the results of a run as Markdown ({@code docs/engineering/benchmarks.md}). */
final class Report {

    static final String DISTLOCK = "distlock LockService";

    static final String DISTLOCK_ANNOTATION = "distlock @DistributedLock";

    static final String TEXTBOOK = "SET NX PX (textbook)";

    static final String REDISSON = "Redisson RLock";

    static final String DISTLOCK_BOOT = "distlock Boot LockService";

    static final String DISTLOCK_BOOT_ANNOTATION = "distlock Boot @DistributedLock";

    static final String COMMAND = "./mvnw -B -q -pl distlock-benchmarks -am package -DskipTests && "
            + "java -jar distlock-benchmarks/target/distlock-benchmarks.jar";

    private final Settings settings;

    private final List<LockContender> contenders;

    private final List<StoreUnderTest> stores;

    private final List<String> skippedStores;

    private final Results results;

    private final Environment environment;

    private final String args;

    private final StringBuilder md = new StringBuilder();

    Report(Settings settings, List<LockContender> contenders, List<StoreUnderTest> stores, List<String> skippedStores,
            Results results, Environment environment, String args) {
        this.settings = settings;
        this.contenders = contenders;
        this.stores = stores;
        this.skippedStores = skippedStores;
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
        // K starts the sample's jar: the command builds it too.
        String command = settings.workloads().contains(FlashSaleWorkload.MEASUREMENT)
                ? COMMAND.replace("-pl distlock-benchmarks", "-pl sample-app,distlock-benchmarks") : COMMAND;
        line(command + (args.isBlank() ? "" : " " + args));
        line("```");
        line("");
        line("`--seconds N` (per measurement, default 10), `--warmup N` (default 3), `--repeats N` (default 3), "
                + "`--quick` (short smoke run), `--contenders " + String.join(",", Contenders.all().keySet())
                + "`, `--workloads " + String.join(",", Settings.ALL_WORKLOADS) + "` (default: all), `--threads 1,8,64` "
                + "(A), `--processes 2,3,4,8` (B2), `--footprint-names 100000` and `--footprint-lease 5` (H, seconds), "
                + "`--stores " + String.join(",", Stores.all()) + "` (S), `--out FILE`; K (the sample's flash sale) runs only "
                + "when named (`--workloads K`) and needs the sample's jar (`./mvnw -B -q -pl sample-app -am package "
                + "-DskipTests`, or `--sample-jar PATH`); so does L (many held locks, `--held 100000`, `java -Xmx4g`).");
        line("");
        renderSummary();
        new BeforeAfter(results, this::line).render();
        renderEnvironment();
        renderA();
        renderRedisCpu();
        renderB();
        renderB1();
        renderB2();
        renderC();
        renderD();
        renderE();
        renderF();
        renderG();
        renderH();
        renderM();
        renderP();
        renderS();
        if (settings.workloads().contains(RawCycleWorkloads.RECIPE)) {
            new RawCycleReport(results, stores, this::line).render();
        }
        renderK();
        new HeldLocksReport(results, contenders, this::line).render();
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
        ratios.add(ratio("B1 acquisitions/s: distlock / Redisson", results.median("B1", DISTLOCK, "acquisitions/s"),
                results.median("B1", REDISSON, "acquisitions/s"), 5));
        for (int n : settings.processCounts()) {
            String b2 = ProcessWorkloads.handOff(n);
            ratios.add(ratio("B2 " + n + " processes, owner changes/s: distlock / Redisson",
                    results.median(b2, DISTLOCK, "owner changes/s"), results.median(b2, REDISSON, "owner changes/s"),
                    1.5));
        }
        ratios.add(ratio("G owner changes/s: distlock / Redisson", results.median("G", DISTLOCK, "owner changes/s"),
                results.median("G", REDISSON, "owner changes/s"), Double.NaN));
        ratios.add(ratio("A64 cycles/s: Boot LockService / bare engine",
                results.median(a64, DISTLOCK_BOOT, "cycles/s"), distlock64, Double.NaN));
        ratios.add(ratio("A64 cycles/s: @DistributedLock / bare engine",
                results.median(a64, DISTLOCK_BOOT_ANNOTATION, "cycles/s"), distlock64, Double.NaN));
        ratios.add(ratio("B owner changes/s: @DistributedLock / bare engine",
                results.median("B", DISTLOCK_BOOT_ANNOTATION, "owner changes/s"),
                results.median("B", DISTLOCK, "owner changes/s"), Double.NaN));
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
        for (int n : settings.processCounts()) {
            String b2 = ProcessWorkloads.handOff(n);
            targetRow("B2 " + n + " processes: distlock wait p99 ≤ 5 ms", b2, DISTLOCK, "wait p99", "ms",
                    v -> v <= 5);
            targetRow("B2 " + n + " processes: distlock fairness (min/max share) ≥ 0.95", b2, DISTLOCK, "min/max",
                    "", v -> v >= 0.95);
        }
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
                + " s per timed measurement" + (settings.workloads().contains(FlashSaleWorkload.MEASUREMENT)
                        ? "; K: its sales, not the instances' start" : "") + ") |");
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
            line("| contender | cycles/s | ÷ textbook | p50 µs | p99 µs | p99.9 µs | client CPU µs/cycle |");
            line("|---|---|---|---|---|---|---|");
            for (LockContender c : contenders) {
                if (results.has(m, c.name(), "cycles/s")) {
                    line("| " + named(m, c.name()) + " | " + cell(m, c.name(), "cycles/s") + " | "
                            + ratioCell(m, c.name(), TEXTBOOK, "cycles/s") + " | " + cell(m, c.name(), "p50") + " | "
                            + cell(m, c.name(), "p99") + " | " + cell(m, c.name(), "p99.9") + " | "
                            + cell(m, c.name(), "cpu") + " |");
                }
            }
            if (threads == 64 && results.has("D", Workloads.CEILING, "cycles/s")) {
                line("| " + Workloads.CEILING + " (see D) | " + cell("D", Workloads.CEILING, "cycles/s")
                        + " | " + fmt(results.median("D", Workloads.CEILING, "cycles/s")
                                / results.median(m, TEXTBOOK, "cycles/s")) + " | | | | |");
            }
            line("");
        }
    }

    /**
     * Redis CPU per cycle of workload A. {@code INFO commandstats} counts a command called from a script twice (in
     * the script's EVAL/EVALSHA time and under its own name), so besides the plain sum the table gives the time of
     * what clients sent: each command's time weighted by the share of its calls that clients sent, as workload C
     * counted them with MONITOR for the same cycle (scripts always count whole).
     */
    private void renderRedisCpu() {
        if (!settings.workloads().contains("A")) {
            return;
        }
        line("### Redis server CPU per uncontended cycle");
        line("");
        line("The server's work per lock + unlock cycle during the timed part of A. *Requests µs* is the "
                + "`INFO commandstats` time of what clients sent (each command's `usec` weighted by the share of its "
                + "calls that clients sent, from C's `MONITOR` counts; needs C in the run); *Σ usec* is the plain sum of "
                + "`usec` over all commands, in which a command called from a script counts twice (inside the "
                + "script's `EVALSHA` and under its own name); *INFO cpu* is the delta of `used_cpu_sys + "
                + "used_cpu_user` (the whole server process: parsing, networking, scripts). Ratios are to the "
                + "textbook lock at the same thread count.");
        line("");
        line("| threads | contender | requests µs/cycle | ÷ textbook | Σ usec µs/cycle | INFO cpu µs/cycle | ÷ textbook |");
        line("|---|---|---|---|---|---|---|");
        for (int threads : settings.threadCounts()) {
            String m = Workloads.uncontended(threads);
            double textbookRequests = requestUsec(m, TEXTBOOK);
            for (LockContender c : contenders) {
                if (!results.has(m, c.name(), "redis cpu")) {
                    continue;
                }
                double requests = requestUsec(m, c.name());
                line("| " + threads + " | " + c.name() + " | " + fmt(requests) + " | " + fmt(requests / textbookRequests)
                        + " | " + cell(m, c.name(), "redis usec") + " | " + cell(m, c.name(), "redis cpu") + " | "
                        + ratioCell(m, c.name(), TEXTBOOK, "redis cpu") + " |");
            }
        }
        line("");
        int threads = settings.threadCounts().get(0);
        String m = Workloads.uncontended(threads);
        line("Where the server's time goes at " + threads + (threads == 1 ? " thread" : " threads")
                + ": `INFO commandstats` µs per cycle by command (a script's own commands are inside its `evalsha` "
                + "time and listed again under their names).");
        line("");
        line("| contender | µs/cycle by command |");
        line("|---|---|");
        for (LockContender c : contenders) {
            List<String> parts = new ArrayList<>();
            results.metrics(m, c.name()).stream().filter(metric -> metric.startsWith("usec "))
                    .sorted((a, b) -> Double.compare(results.median(m, c.name(), b), results.median(m, c.name(), a)))
                    .filter(metric -> results.median(m, c.name(), metric) >= 0.05)
                    .forEach(metric -> parts.add(metric.substring("usec ".length()) + " "
                            + fmt(results.median(m, c.name(), metric))));
            if (!parts.isEmpty()) {
                line("| " + c.name() + " | " + String.join(", ", parts) + " |");
            }
        }
        line("");
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

    private void renderB1() {
        if (!settings.workloads().contains("B1")) {
            return;
        }
        line("## B1. Contended inside one instance: one client, 8 threads on one key");
        line("");
        line("As B, but the eight threads share one client instance, as the threads of one application instance do "
                + "(distlock: one lock service; Redisson: one client; RedisLockRegistry: one registry). distlock hands "
                + "the lock from thread to thread inside the JVM (local hand-off) without a Redis round trip.");
        line("");
        line("| contender | acquisitions/s | owner changes/s | wait p50 ms | wait p99 ms | wait p99.9 ms | fairness | "
                + "exclusion violations |");
        line("|---|---|---|---|---|---|---|---|");
        for (LockContender c : contenders) {
            row("B1", c.name(), "acquisitions/s", "owner changes/s", "wait p50", "wait p99", "wait p99.9", "fairness",
                    "violations");
        }
        line("");
    }

    private void renderB2() {
        if (!settings.workloads().contains("B2")) {
            return;
        }
        line("## B2. Contended across processes: N JVMs on one key");
        line("");
        line("N separate JVM processes (started by the harness with its own class path), each with one client "
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
        line("");
        line("| N | contender | acquisitions/s | owner changes/s | ÷ Redisson | wait p50 ms | wait p99 ms | "
                + "wait p99.9 ms | shares % | min/max | Jain | violations | failed calls | failed warm-up calls |");
        line("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (int n : settings.processCounts()) {
            String m = ProcessWorkloads.handOff(n);
            for (LockContender c : contenders) {
                if (results.has(m, c.name(), "acquisitions/s")) {
                    line("| " + n + " | " + named(m, c.name()) + " | " + cell(m, c.name(), "acquisitions/s") + " | "
                            + cell(m, c.name(), "owner changes/s") + " | "
                            + ratioCell(m, c.name(), REDISSON, "owner changes/s") + " | "
                            + cell(m, c.name(), "wait p50") + " | " + cell(m, c.name(), "wait p99") + " | "
                            + cell(m, c.name(), "wait p99.9") + " | " + shares(m, c.name(), n) + " | "
                            + cell(m, c.name(), "min/max") + " | " + cell(m, c.name(), "jain") + " | "
                            + cell(m, c.name(), "violations") + " | " + cell(m, c.name(), "errors") + " | "
                            + cell(m, c.name(), "warm-up failures") + " |");
                }
            }
        }
        line("");
    }

    /** @return the median shares, largest first, e.g. {@code 50.2 / 49.8} */
    private String shares(String measurement, String contender, int count) {
        List<String> parts = new ArrayList<>();
        for (int i = 1; i <= count; i++) {
            parts.add(fmt(results.median(measurement, contender, "share " + i)));
        }
        return String.join(" / ", parts);
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

    private void renderG() {
        if (!settings.workloads().contains("G")) {
            return;
        }
        line("## G. Hot key across JVMs: " + settings.hotJvms() + " JVMs × " + settings.hotThreads() + " threads, "
                + settings.hotWork().toNanos() / 1000 + " µs of work inside");
        line("");
        line(settings.hotJvms() + " separate JVM processes, each with one client instance shared by its "
                + settings.hotThreads() + " threads (one application node each), lock one key in a loop and hold it "
                + "for " + settings.hotWork().toNanos() / 1000 + " µs of busy work (spinning on `System.nanoTime()`, "
                + "not sleeping). Counting and the exclusion check as in B2. Owner changes are grants to a different "
                + "thread (of any JVM) than the previous grant; JVM changes are grants to another JVM than the "
                + "previous one; *JVM shares* are each JVM's part of the grants, largest first, and *min/max* the "
                + "smallest ÷ the largest; *thread Jain* is Jain's index over all " + settings.hotJvms()
                * settings.hotThreads() + " threads' grant counts.");
        line("");
        line("| contender | acquisitions/s | owner changes/s | ÷ Redisson | JVM changes/s | wait p50 ms | wait p99 ms | "
                + "wait p99.9 ms | JVM shares % | min/max | thread Jain | violations | failed calls | failed warm-up calls |");
        line("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|");
        for (LockContender c : contenders) {
            if (results.has("G", c.name(), "acquisitions/s")) {
                line("| " + named("G", c.name()) + " | " + cell("G", c.name(), "acquisitions/s") + " | "
                        + cell("G", c.name(), "owner changes/s") + " | "
                        + ratioCell("G", c.name(), REDISSON, "owner changes/s") + " | "
                        + cell("G", c.name(), "jvm changes/s") + " | " + cell("G", c.name(), "wait p50") + " | "
                        + cell("G", c.name(), "wait p99") + " | " + cell("G", c.name(), "wait p99.9") + " | "
                        + shares("G", c.name(), settings.hotJvms()) + " | " + cell("G", c.name(), "min/max") + " | "
                        + cell("G", c.name(), "thread jain") + " | " + cell("G", c.name(), "violations") + " | "
                        + cell("G", c.name(), "errors") + " | " + cell("G", c.name(), "warm-up failures") + " |");
            }
        }
        line("");
    }

    private void renderH() {
        if (!settings.workloads().contains("H")) {
            return;
        }
        long lease = settings.footprintLease().toSeconds();
        line("## H. Footprint: " + String.format(Locale.ROOT, "%,d", settings.footprintNames())
                + " names locked and released once");
        line("");
        line("One client (8 threads) locks and releases " + String.format(Locale.ROOT, "%,d", settings.footprintNames())
                + " distinct names once each, with a " + lease + " s lease for this run (distlock "
                + "`distlock.lease-time`, Redisson `lockWatchdogTimeout`, RedisLockRegistry `expireAfter`; the "
                + "textbook lock keeps its fixed 30 s). Keys are `DBSIZE` and memory is `used_memory` (`INFO "
                + "memory`), both as the change from just before (the harness empties its own server with "
                + "`FLUSHALL` first, so keys are absolute there), read right after the last release and again "
                + (lease + 1) + " s later, after the lease has passed, with the client still open.");
        line("");
        line("| contender | lock + unlock/s | keys right after | used_memory MB right after | keys after the lease | "
                + "used_memory MB after the lease | keys left |");
        line("|---|---|---|---|---|---|---|");
        for (LockContender c : contenders) {
            if (results.has("H", c.name(), "keys after")) {
                line("| " + c.name() + " | " + cell("H", c.name(), "cycles/s") + " | " + cell("H", c.name(), "keys after")
                        + " | " + cell("H", c.name(), "memory after") + " | " + cell("H", c.name(), "keys after lease")
                        + " | " + cell("H", c.name(), "memory after lease") + " | "
                        + nullToEmpty(results.note("H", c.name())) + " |");
            }
        }
        line("");
    }

    private void renderM() {
        if (!settings.workloads().contains("M")) {
            return;
        }
        line("## M. Several names at once: two new names per cycle, uncontended");
        line("");
        line("Every cycle locks two names no other cycle uses and unlocks them: with the library's own multi-lock "
                + "(distlock `executeWithLocks`, sorted, all or none; Redisson `RedissonMultiLock`), and with the same "
                + "two locks taken one after the other. \"multi ÷ one by one\" is what taking the names together "
                + "costs over two plain locks (1 = nothing).");
        line("");
        for (int threads : List.of(1, 8)) {
            String measurement = Workloads.multiName(threads);
            line("### " + threads + (threads == 1 ? " thread" : " threads"));
            line("");
            line("| contender | multi cycles/s | one by one cycles/s | multi ÷ one by one | multi p50 µs | multi p99 µs "
                    + "| one by one p50 µs | one by one p99 µs |");
            line("|---|---|---|---|---|---|---|---|");
            for (LockContender c : contenders) {
                if (!results.has(measurement, c.name(), "one by one cycles/s")) {
                    continue;
                }
                double ratio = results.median(measurement, c.name(), "multi cycles/s")
                        / results.median(measurement, c.name(), "one by one cycles/s");
                line("| " + named(measurement, c.name()) + " | " + cell(measurement, c.name(), "multi cycles/s") + " | "
                        + cell(measurement, c.name(), "one by one cycles/s") + " | "
                        + (Double.isNaN(ratio) ? "—" : fmt(ratio)) + " | "
                        + cell(measurement, c.name(), "multi p50") + " | " + cell(measurement, c.name(), "multi p99")
                        + " | " + cell(measurement, c.name(), "one by one p50") + " | "
                        + cell(measurement, c.name(), "one by one p99") + " |");
            }
            line("");
        }
    }

    private void renderP() {
        if (!settings.workloads().contains("P")) {
            return;
        }
        line("## P. Permits: 8 JVM-like clients on one key, " + Workloads.PERMIT_WORK.toMillis() + " ms of work inside");
        line("");
        line("Eight threads, each with its own client instance, take one permit of one key (1 permit is a lock), "
                + "work " + Workloads.PERMIT_WORK.toMillis() + " ms inside and release it, in a loop. Every grant "
                + "checks that no more than the permits are inside at once; any violation fails the run. \"÷ 1 permit\" "
                + "is the grants/s against the same contender's with one permit.");
        line("");
        line("| contender | permits | grants/s | ÷ 1 permit | wait p50 ms | wait p99 ms | fairness | violations |");
        line("|---|---|---|---|---|---|---|---|");
        for (LockContender c : contenders) {
            for (int permits : List.of(1, 3)) {
                String measurement = Workloads.permits(permits);
                if (!results.has(measurement, c.name(), "acquisitions/s")) {
                    continue;
                }
                line("| " + named(measurement, c.name()) + " | " + permits + " | "
                        + cell(measurement, c.name(), "acquisitions/s") + " | "
                        + ratioOf(measurement, Workloads.permits(1), c.name(), "acquisitions/s") + " | "
                        + cell(measurement, c.name(), "wait p50") + " | " + cell(measurement, c.name(), "wait p99")
                        + " | " + cell(measurement, c.name(), "fairness") + " | "
                        + cell(measurement, c.name(), "violations") + " |");
            }
        }
        line("");
    }

    /** @return the contender's median in one measurement ÷ its median in another, or "–" */
    private String ratioOf(String measurement, String reference, String contender, String metric) {
        if (!results.has(reference, contender, metric)) {
            return "–";
        }
        return fmt(results.median(measurement, contender, metric) / results.median(reference, contender, metric));
    }

    private void renderS() {
        if (!settings.workloads().contains("S") || stores.isEmpty() && skippedStores.isEmpty()) {
            return;
        }
        line("## S. distlock on each store");
        line("");
        line("The same engine (`StoreLockService`, library defaults, `waitTime` 30 s) on each store, one store after "
                + "the other (the order rotates every repeat), every node with connections of its own. A is workload "
                + "A on the store: one node, N threads, lock + unlock of a new name every cycle, latency per cycle. "
                + "The hot key: " + StoreWorkloads.HOT_NODES + " nodes (lock services with stores of their own, in "
                + "the harness's JVM) × " + StoreWorkloads.HOT_THREADS + " threads lock one name in a loop and spin "
                + StoreWorkloads.HOT_WORK.toNanos() / 1000 + " µs inside; counted after the warm-up. Owner changes "
                + "are grants to another thread than the previous grant, node changes to another node; node shares "
                + "are each node's part of the grants, largest first. ÷ Redis is the ratio to " + Stores.REDIS
                + " in this run.");
        line("");
        if (!stores.isEmpty()) {
            line("| store | setup |");
            line("|---|---|");
            for (StoreUnderTest store : stores) {
                line("| " + store.name() + " | " + store.setup() + " |");
            }
            line("");
        }
        for (String skipped : skippedStores) {
            line("**Skipped** (asked for, not measured) " + skipped + ".");
            line("");
        }
        for (int threads : List.of(1, 8)) {
            String m = StoreWorkloads.uncontended(threads);
            line("### S A" + threads + ": uncontended lock + unlock, " + threads
                    + (threads == 1 ? " thread" : " threads"));
            line("");
            line("| store | cycles/s | ÷ Redis | p50 µs | p99 µs | p99.9 µs | failed cycles |");
            line("|---|---|---|---|---|---|---|");
            for (StoreUnderTest store : stores) {
                if (results.has(m, store.name(), "cycles/s")) {
                    line("| " + store.name() + " | " + cell(m, store.name(), "cycles/s") + " | "
                            + ratioCell(m, store.name(), Stores.REDIS, "cycles/s") + " | "
                            + cell(m, store.name(), "p50") + " | " + cell(m, store.name(), "p99") + " | "
                            + cell(m, store.name(), "p99.9") + " | "
                            + cell(m, store.name(), "errors") + " |");
                }
            }
            line("");
        }
        String hot = StoreWorkloads.HOT;
        line("### S hot key: " + StoreWorkloads.HOT_NODES + " nodes × " + StoreWorkloads.HOT_THREADS + " threads, "
                + StoreWorkloads.HOT_WORK.toNanos() / 1000 + " µs inside");
        line("");
        line("| store | grants/s | ÷ Redis | owner changes/s | node changes/s | wait p50 ms | wait p99 ms | "
                + "node shares % | violations | failed calls |");
        line("|---|---|---|---|---|---|---|---|---|---|");
        for (StoreUnderTest store : stores) {
            if (results.has(hot, store.name(), "grants/s")) {
                line("| " + named(hot, store.name()) + " | " + cell(hot, store.name(), "grants/s") + " | "
                        + ratioCell(hot, store.name(), Stores.REDIS, "grants/s") + " | "
                        + cell(hot, store.name(), "owner changes/s") + " | " + cell(hot, store.name(), "node changes/s")
                        + " | " + cell(hot, store.name(), "wait p50") + " | " + cell(hot, store.name(), "wait p99")
                        + " | " + shares(hot, store.name(), StoreWorkloads.HOT_NODES) + " | "
                        + cell(hot, store.name(), "violations") + " | " + cell(hot, store.name(), "errors") + " |");
            }
        }
        line("");
        line("How to read S:");
        line("");
        line("- Every store shares the two cores with the harness. Redis, Redlock's masters, PostgreSQL, MariaDB and "
                + "etcd's members are processes of their own; the H2 and ZooKeeper servers run inside the harness's JVM (its "
                + "CPU and garbage collector), as their tests run them.");
        line("- `min-replicas=auto` (the default) on a master with a replica, as `1`: every acquire sends "
                + "`WAIT 1 <timeout>` right behind the lock script on the same "
                + "connection (pipelined, no extra client round trip), and the master answers it once the replica "
                + "has acknowledged the write: the acquire waits one more master → replica → master round trip, "
                + "and acquires use a connection of their own. Releases do not wait; each renewal batch gets one "
                + "`WAIT` too. On the standalone master (no replica) `auto` sends no `WAIT`.");
        line("- Redlock: each acquire and each release is sent to all 3 masters at once (3 requests in parallel on "
                + "3 connections) and returns with the majority's replies, so a cycle costs the slowest of two "
                + "answers plus three times the Redis work and client work. Waiters are not queued on the masters: "
                + "a busy lock is retried after a random 20–120 ms.");
        line("- Hot key: inside a node only one thread per name asks the store, the others queue in the JVM. On "
                + "Redis and Redlock (fencing tokens that follow the clock) a node passes a held lock straight to "
                + "its next waiting thread, up to `distlock.local-hand-off.max-count` = 100 times or `max-time` = "
                + "5 ms in a row, then releases it to the store: most grants are hand-offs inside a node (node "
                + "changes ≪ grants). Redlock's and JDBC's waiters on other nodes poll (Redlock 20–120 ms, JDBC "
                + "5–100 ms back-off), so when a node releases, its own next thread, asking at once, usually wins "
                + "again. ZooKeeper queues every node's request on the server (sequential nodes) and grants the "
                + "oldest; its tokens are zxids, so there is no local hand-off: every grant is a server round trip "
                + "and goes to another node (node changes = grants). etcd does the same with keys queued by create "
                + "revision (its tokens): a release deletes the holder's key, etcd tells the next key's node through "
                + "its watch, and that node re-reads its place (one more transaction) before it holds the lock.");
        line("- ZooKeeper writes (create and delete of the lock node) are answered after the server has appended "
                + "them to its transaction log and fsynced it (`zookeeper.forceSync=yes`, the default; concurrent "
                + "writes share an fsync). Run with `-Dzookeeper.forceSync=no` to see the protocol without the disk.");
        line("- etcd: an uncontended cycle is two transactions, the lock (put the request's key on its lease and "
                + "read the key before it) and the release (delete the key if it still has its create revision); "
                + "a watchdog lock's key is on a lease the node shares among its watchdog locks, granted by the first "
                + "acquire and kept alive by the store (one keep-alive per third of the lease, not per lock). Every "
                + "write is appended to etcd's write-ahead log and fsynced before it is answered; the harness puts "
                + "the data on tmpfs (see the setup), where that fsync costs nothing. With 3 members a write is also "
                + "committed by a second member (one more leader → follower → leader trip over loopback).");
        line("- H2 keeps the database in memory (no disk at all): the JDBC path's cost without a database's "
                + "durability. PostgreSQL keeps its durability defaults: each lock and each release is a commit, "
                + "flushed to the write-ahead log. MariaDB flushes its redo log at every commit "
                + "(`innodb_flush_log_at_trx_commit=1`, the default): each lock (the insert-or-update and the read-back "
                + "of its token, one transaction) and each release is a commit.");
        line("");
    }

    private void renderK() {
        String k = FlashSaleWorkload.MEASUREMENT;
        String locked = FlashSaleWorkload.LOCKED;
        String unlocked = FlashSaleWorkload.UNLOCKED;
        if (!settings.workloads().contains(k) || !results.has(k, locked, "req/s")) {
            return;
        }
        line("## K. The sample's flash sale: " + FlashSaleWorkload.INSTANCES + " instances, "
                + String.format(Locale.ROOT, "%,d", FlashSaleWorkload.BUYERS) + " buyers, "
                + FlashSaleWorkload.CONCURRENCY + " in flight");
        line("");
        line("The harness starts " + FlashSaleWorkload.INSTANCES + " instances of the sample app (`java -Xmx256m "
                + "-XX:+UseSerialGC -jar sample-app.jar`, one shared H2 database, all on this run's Redis), runs one "
                + "warm-up sale with and one without the lock, then per repeat one of each (the order alternates): "
                + "`POST /api/demo/flash-sale?lock=true|false&product=1&stock=" + FlashSaleWorkload.STOCK + "&buyers="
                + FlashSaleWorkload.BUYERS + "&concurrency=" + FlashSaleWorkload.CONCURRENCY + "` on the first "
                + "instance, which resets the stock and sends the buyers round-robin to all three. Locked buyers "
                + "call `POST /api/products/1/deduct` (`@DistributedLock(name = \"stock\", key = \"#productId\")` "
                + "around a `@Transactional` read-check-update), unlocked ones the demo's `deduct-unlocked`, the same "
                + "code without the lock. *req/s* is buyers ÷ the sale's wall time (stock reset to last answer, as "
                + "the sample measures it). The figures after it come from the sample's lock timeline "
                + "(`GET /api/demo/timeline`, merged over the instances): per call the lock's grant and the return "
                + "of its release (the lock service's listener, on the caller's thread) and the body's start and end; "
                + "all are wall-clock µs of processes on one machine, so they compare across instances.");
        line("");
        line("- *lock busy*: the time some instance holds the lock (grant → release returned) ÷ the wall time; "
                + "*body busy*: the time some instance runs the locked method's body ÷ the wall time (union of "
                + "intervals, so concurrent unlocked bodies count once).");
        line("- *gap*: release returned → the next grant, holds taken in grant order; *same instance* when both "
                + "holds are on one instance (distlock hands the lease to the next local thread without Redis), "
                + "*across instances* otherwise. A gap is negative when the next holder's grant came before the "
                + "previous holder's release call returned (Redis hands the lock over inside the release script).");
        line("");
        line("| sale | req/s | seconds | sold | sold out | errors | oversold | lock busy | body busy |");
        line("|---|---|---|---|---|---|---|---|---|");
        for (String sale : List.of(locked, unlocked)) {
            line("| " + named(k, sale) + " | " + cell(k, sale, "req/s") + " | " + cell(k, sale, "seconds") + " | "
                    + cell(k, sale, "sold") + " | " + cell(k, sale, "sold out") + " | " + cell(k, sale, "errors")
                    + " | " + cell(k, sale, "oversold") + " | " + cell(k, sale, "lock busy") + " | "
                    + cell(k, sale, "body busy") + " |");
        }
        line("");
        double lockBusy = results.median(k, locked, "lock busy");
        double ratio = results.median(k, locked, "req/s") / results.median(k, unlocked, "req/s");
        double oversold = results.max(k, locked, "oversold");
        double crossP50 = results.median(k, locked, "cross gap p50");
        line("| target (issue 22) | measured | met |");
        line("|---|---|---|");
        line("| lock busy fraction ≥ 0.8 | " + fmt(lockBusy) + " | " + yes(lockBusy >= 0.8) + " |");
        line("| locked req/s ≥ 0.9 × unlocked, 0 oversold | " + fmt(ratio) + "×, oversold " + fmt(oversold) + " | "
                + yes(ratio >= 0.9 && oversold == 0) + " |");
        line("| cross-instance hand-off gap p50 ≤ 1 ms | " + fmt(crossP50) + " ms | " + yes(crossP50 <= 1) + " |");
        line("");
        line("### K hand-offs (locked sales)");
        line("");
        line("| hand-off | count | gap p50 ms | gap p90 ms | gap p99 ms | body end → release returned p50 ms | "
                + "grant → body start p50 ms | body end → next body start p50 ms |");
        line("|---|---|---|---|---|---|---|---|");
        for (String where : List.of("same", "cross")) {
            line("| " + (where.equals("same") ? "same instance" : "across instances") + " | "
                    + cell(k, locked, where + " hand-offs") + " | " + cell(k, locked, where + " gap p50") + " | "
                    + cell(k, locked, where + " gap p90") + " | " + cell(k, locked, where + " gap p99") + " | "
                    + cell(k, locked, where + " body end→release p50") + " | "
                    + cell(k, locked, where + " grant→body p50") + " | " + cell(k, locked, where + " body gap p50")
                    + " |");
        }
        line("");
        line("### K: what a cross-instance hand-off is made of");
        line("");
        double releaseToPublish = results.median(k, locked, "cross release→publish p50");
        double publishToGrant = results.median(k, locked, "cross publish→grant p50");
        line("After the holder's body ends, its transaction commits and it calls the release script; Redis runs "
                + "`release.lua`, which hands the lock to the longest waiter with its fencing token and PUBLISHes "
                + "the hand-over on `distlock:released`, then replies to the releaser. The waiting instance's "
                + "subscriber receives the message and wakes the waiting thread (unpark), which is granted the lock "
                + "at once: its acquire, sent at the same moment, confirms it off the critical path (before the "
                + "hand-over, the waiter was granted only by that acquire's answer, one more round trip). The lock "
                + "advice then begins the transaction and the body starts. The harness "
                + "subscribes to the same channel and notes when each message arrives (" + cell(k, locked, "publishes")
                + " messages per locked sale; " + cell(k, locked, "cross matched") + " cross-instance hand-offs "
                + "matched to one: the last message after the previous body ended and before the grant).");
        line("");
        line("| part (medians over the hand-offs, then over the repeats) | ms | how |");
        line("|---|---|---|");
        line("| previous body end → its release returned (commit + release round trip; before the gap) | "
                + cell(k, locked, "cross body end→release p50") + " | timeline |");
        line("| release returned → PUBLISH seen by the harness (release reply vs PUBLISH delivery) | "
                + cell(k, locked, "cross release→publish p50") + " | timeline + harness subscriber |");
        line("| PUBLISH seen → grant (subscriber wake + unpark; the confirming acquire runs beside the body) | "
                + cell(k, locked, "cross publish→grant p50") + " | harness subscriber + timeline |");
        line("| for scale: one Redis round trip (harness `PING` p50, idle), no longer part of the gap | "
                + cell(k, locked, "ping p50") + " | harness |");
        line("| grant → body start (lock advice, transaction begin) | " + cell(k, locked, "cross grant→body p50")
                + " | timeline |");
        line("| whole gap, release returned → grant (p50) | " + cell(k, locked, "cross gap p50")
                + " | timeline (≈ " + fmt(releaseToPublish + publishToGrant) + " as the sum of the two medians) |");
        line("");
        line("Not separable from outside: the release reply and the PUBLISH leave Redis from one script run, so "
                + "their delivery is measured only against each other; the waiting instance's subscriber wake and "
                + "the unpark of its thread happen inside its JVM, with no meter or timeline entry for either (the "
                + "harness's subscriber stands in for the instance's, on another process of the same machine); the "
                + "listener sees only the whole acquisition, started when the buyer first asked. Splitting these "
                + "needs timestamps inside the library.");
        line("");
    }

    private void renderMethod() {
        line("## How to read this");
        line("");
        line("- All contenders run in one JVM, one after the other (never at the same time), against the same server; "
                + "each measurement creates its client(s), warms up, measures, and closes them.");
        line("- B2 and G run in child JVMs (`java -cp <the harness's class path> dev.distlock.benchmarks.ChildMain`), "
                + "started together for each measurement and all killed after it; everything else runs in the "
                + "harness's JVM.");
        line("- Library defaults everywhere (connection pools, codecs, timeouts); only the watchdog lease in E and H is "
                + "set, and waits are about a minute for every contender (distlock: `waitTime` 60 s, Boot contenders "
                + "`distlock.wait-time=60s`).");
        line("- The Boot contenders (`distlock-boot`, `distlock-annotation`) start one minimal Spring Boot context "
                + "(`@EnableAutoConfiguration`, no web server, Boot's own Lettuce connection factory on "
                + "`spring.data.redis.*`) per client instance: the `LockService` bean, or a bean method annotated "
                + "`@DistributedLock(name = \"bench\", key = \"#name\")` with the work as its body.");
        line("- The harness JVM and redis-server share the machine: on 2 cores the client's CPU use takes CPU away from "
                + "Redis, which is why client CPU per cycle matters for throughput.");
        line("- Noise: repeat counts and the [min–max] spread are shown; trust ratios within one run more than "
                + "absolute numbers across machines.");
        line("");
    }

    // ------------------------------------------------------------------ cells

    /** @return the contender's name with its note, if any */
    private String named(String measurement, String contender) {
        String note = results.note(measurement, contender);
        return contender + (note == null ? "" : " (" + note + ")");
    }

    /** @return median of the contender ÷ median of the reference, or "–" */
    private String ratioCell(String measurement, String contender, String reference, String metric) {
        if (!results.has(measurement, reference, metric)) {
            return "–";
        }
        return fmt(results.median(measurement, contender, metric) / results.median(measurement, reference, metric));
    }

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

    static String nullToEmpty(String text) {
        return text == null ? "" : text;
    }

    void line(String text) {
        md.append(text).append('\n');
    }
}
