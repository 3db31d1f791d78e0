package dev.distlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.ZonedDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Locale;

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
        new SummaryReport(settings, cells).render();
        new BeforeAfter(cells).render();
        renderEnvironment();
        UncontendedReport uncontended = new UncontendedReport(settings, contenders, cells);
        ContendedReport contended = new ContendedReport(settings, contenders, cells);
        uncontended.renderA();
        uncontended.renderRedisCpu();
        contended.renderB();
        contended.renderB1();
        contended.renderB2();
        uncontended.renderC();
        uncontended.renderD();
        renderE();
        renderF();
        contended.renderG();
        renderH();
        uncontended.renderM();
        contended.renderP();
        new StoreReport(settings, stores, skippedStores, cells).render();
        if (settings.workloads().contains(RawCycleWorkloads.RECIPE)) {
            new RawCycleReport(stores, cells).render();
        }
        new FlashSaleReport(settings, cells).render();
        new HeldLocksReport(contenders, cells).render();
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
