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

import static dev.distlock.benchmarks.ReportCells.fmt;
import static dev.distlock.benchmarks.ReportCells.nullToEmpty;

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

    private final ReportCells cells;

    Report(Settings settings, List<LockContender> contenders, List<StoreUnderTest> stores, List<String> skippedStores,
            Results results, Environment environment, String args) {
        this.settings = settings;
        this.contenders = contenders;
        this.stores = stores;
        this.skippedStores = skippedStores;
        this.results = results;
        this.environment = environment;
        this.args = args;
        this.cells = new ReportCells(results, this::line);
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
        new SummaryReport(settings, results, cells).render();
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
        new StoreReport(settings, stores, skippedStores, cells).render();
        if (settings.workloads().contains(RawCycleWorkloads.RECIPE)) {
            new RawCycleReport(results, stores, this::line).render();
        }
        new FlashSaleReport(settings, results, cells).render();
        new HeldLocksReport(results, contenders, this::line).render();
        renderMethod();
        return md.toString();
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
                    line("| " + cells.named(m, c.name()) + " | " + cells.cell(m, c.name(), "cycles/s") + " | "
                            + cells.ratioCell(m, c.name(), TEXTBOOK, "cycles/s") + " | " + cells.cell(m, c.name(), "p50") + " | "
                            + cells.cell(m, c.name(), "p99") + " | " + cells.cell(m, c.name(), "p99.9") + " | "
                            + cells.cell(m, c.name(), "cpu") + " |");
                }
            }
            if (threads == 64 && results.has("D", Workloads.CEILING, "cycles/s")) {
                line("| " + Workloads.CEILING + " (see D) | " + cells.cell("D", Workloads.CEILING, "cycles/s")
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
                        + " | " + cells.cell(m, c.name(), "redis usec") + " | " + cells.cell(m, c.name(), "redis cpu") + " | "
                        + cells.ratioCell(m, c.name(), TEXTBOOK, "redis cpu") + " |");
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
            cells.row("B", c.name(), "acquisitions/s", "owner changes/s", "wait p50", "wait p99", "wait p99.9", "fairness",
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
            cells.row("B1", c.name(), "acquisitions/s", "owner changes/s", "wait p50", "wait p99", "wait p99.9", "fairness",
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
                    line("| " + n + " | " + cells.named(m, c.name()) + " | " + cells.cell(m, c.name(), "acquisitions/s") + " | "
                            + cells.cell(m, c.name(), "owner changes/s") + " | "
                            + cells.ratioCell(m, c.name(), REDISSON, "owner changes/s") + " | "
                            + cells.cell(m, c.name(), "wait p50") + " | " + cells.cell(m, c.name(), "wait p99") + " | "
                            + cells.cell(m, c.name(), "wait p99.9") + " | " + cells.shares(m, c.name(), n) + " | "
                            + cells.cell(m, c.name(), "min/max") + " | " + cells.cell(m, c.name(), "jain") + " | "
                            + cells.cell(m, c.name(), "violations") + " | " + cells.cell(m, c.name(), "errors") + " | "
                            + cells.cell(m, c.name(), "warm-up failures") + " |");
                }
            }
        }
        line("");
    }

    /** @return the median shares, largest first, e.g. {@code 50.2 / 49.8} */
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
                line("| " + c.name() + " | " + cells.cell("C", c.name(), "requests") + " | " + cells.cell("C", c.name(), "commands")
                        + " | " + cells.cell("C", c.name(), "total_commands_processed") + " | "
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
        line("| " + Workloads.CEILING + " | " + cells.cell("D", Workloads.CEILING, "evalsha/s") + " | "
                + cells.cell("D", Workloads.CEILING, "cycles/s") + " |");
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
                line("| " + c.name() + " | " + cells.cell("E", c.name(), "requests/s") + " | "
                        + cells.cell("E", c.name(), "requests/lock/s") + " | " + cells.cell("E", c.name(), "commands/s") + " | "
                        + cells.cell("E", c.name(), "alive") + " of " + settings.watchdogLocks() + " | "
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
                line("| " + metric + " | " + cells.cell("F", DISTLOCK_ANNOTATION, metric) + " |");
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
                line("| " + cells.named("G", c.name()) + " | " + cells.cell("G", c.name(), "acquisitions/s") + " | "
                        + cells.cell("G", c.name(), "owner changes/s") + " | "
                        + cells.ratioCell("G", c.name(), REDISSON, "owner changes/s") + " | "
                        + cells.cell("G", c.name(), "jvm changes/s") + " | " + cells.cell("G", c.name(), "wait p50") + " | "
                        + cells.cell("G", c.name(), "wait p99") + " | " + cells.cell("G", c.name(), "wait p99.9") + " | "
                        + cells.shares("G", c.name(), settings.hotJvms()) + " | " + cells.cell("G", c.name(), "min/max") + " | "
                        + cells.cell("G", c.name(), "thread jain") + " | " + cells.cell("G", c.name(), "violations") + " | "
                        + cells.cell("G", c.name(), "errors") + " | " + cells.cell("G", c.name(), "warm-up failures") + " |");
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
                line("| " + c.name() + " | " + cells.cell("H", c.name(), "cycles/s") + " | " + cells.cell("H", c.name(), "keys after")
                        + " | " + cells.cell("H", c.name(), "memory after") + " | " + cells.cell("H", c.name(), "keys after lease")
                        + " | " + cells.cell("H", c.name(), "memory after lease") + " | "
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
                line("| " + cells.named(measurement, c.name()) + " | " + cells.cell(measurement, c.name(), "multi cycles/s") + " | "
                        + cells.cell(measurement, c.name(), "one by one cycles/s") + " | "
                        + (Double.isNaN(ratio) ? "—" : fmt(ratio)) + " | "
                        + cells.cell(measurement, c.name(), "multi p50") + " | " + cells.cell(measurement, c.name(), "multi p99")
                        + " | " + cells.cell(measurement, c.name(), "one by one p50") + " | "
                        + cells.cell(measurement, c.name(), "one by one p99") + " |");
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
                line("| " + cells.named(measurement, c.name()) + " | " + permits + " | "
                        + cells.cell(measurement, c.name(), "acquisitions/s") + " | "
                        + ratioOf(measurement, Workloads.permits(1), c.name(), "acquisitions/s") + " | "
                        + cells.cell(measurement, c.name(), "wait p50") + " | " + cells.cell(measurement, c.name(), "wait p99")
                        + " | " + cells.cell(measurement, c.name(), "fairness") + " | "
                        + cells.cell(measurement, c.name(), "violations") + " |");
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

    void line(String text) {
        md.append(text).append('\n');
    }
}
