package dev.distlock.benchmarks;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

import dev.distlock.embedded.RedisServerProcess;

/**
 * Runs every workload against every contender on one Redis server and writes {@code docs/engineering/benchmarks.md}.
 * <p>
 * {@code java -jar distlock-benchmarks/target/distlock-benchmarks.jar [--redis host:port] [--seconds 10]
 * [--warmup 3] [--repeats 3] [--quick] [--contenders distlock,redisson,...]
 * [--workloads A,B,B1,B2,C,D,E,F,G,H,M,P,S,R] [--processes 2,3,4,8] [--footprint-names 100000] [--footprint-lease 5]
 * [--stores redis,redlock,...] [--out docs/engineering/benchmarks.md]
 * [--note "..."]}
 * <p>
 * Workload K (the sample's flash sale) runs only when named, e.g. {@code --workloads K}: it starts the sample app's
 * executable jar, {@code --sample-jar PATH} or {@code -Ddistlock.sample.jar=PATH}, by default the one in
 * {@code sample-app/target} ({@code ./mvnw -pl sample-app -am package -DskipTests}).
 * Workload L (many held locks) also runs only when named: {@code java -Xmx4g -jar ... --workloads L [--held 100000]}.
 * So does the contender {@code distlock-batched} ({@code --contenders distlock,distlock-batched,textbook}).
 * {@code --stores} (workloads S and R) takes the reference {@code redis}, its other set-ups and the id of every store
 * fixture on the class path, all of them by default; an unknown id is refused with the list.
 */
public final class BenchmarkMain {


    private BenchmarkMain() {
    }

    /**
     * Entry point.
     *
     * @param args see the class comment
     * @throws Exception when the run cannot complete
     */
    public static void main(String[] args) throws Exception {
        Map<String, String> options = CommandLineOptions.parse(args);
        boolean quick = options.containsKey("quick");
        Settings settings = new Settings(
                Duration.ofSeconds(Long.parseLong(options.getOrDefault("warmup", quick ? "1" : "3"))),
                Duration.ofSeconds(Long.parseLong(options.getOrDefault("seconds", quick ? "2" : "10"))),
                Integer.parseInt(options.getOrDefault("repeats", quick ? "1" : "3")),
                Integer.parseInt(options.getOrDefault("traffic-cycles", quick ? "300" : "2000")),
                Integer.parseInt(options.getOrDefault("watchdog-locks", "1000")),
                Duration.ofSeconds(Long.parseLong(options.getOrDefault("watchdog-seconds", quick ? "4" : "15"))),
                Duration.ofSeconds(3),
                integers(options.getOrDefault("threads", "1,8,64")),
                integers(options.getOrDefault("processes", "2,3,4,8")),
                3, 16, Duration.ofNanos(50_000),
                Integer.parseInt(options.getOrDefault("footprint-names", quick ? "10000" : "100000")),
                Duration.ofSeconds(Long.parseLong(options.getOrDefault("footprint-lease", "5"))),
                Arrays.stream(options.getOrDefault("contenders", String.join(",", Contenders.defaults()))
                        .split(",")).map(String::trim).toList(),
                List.of(options.getOrDefault("workloads", String.join(",", Settings.ALL_WORKLOADS)).toUpperCase()
                        .split(",")),
                Arrays.stream(options.getOrDefault("stores", String.join(",", Stores.all())).split(","))
                        .map(String::trim).toList());
        for (String id : settings.stores()) {
            if (!Stores.all().contains(id)) {
                throw new IllegalArgumentException("--stores: unknown '" + id + "', known: " + Stores.all());
            }
        }
        for (String letter : settings.workloads()) {
            if (!Settings.ALL_WORKLOADS.contains(letter) && !Settings.NAMED_ONLY_WORKLOADS.contains(letter)) {
                throw new IllegalArgumentException("--workloads: unknown '" + letter + "', known: "
                        + Settings.ALL_WORKLOADS + " and, run only when named, " + Settings.NAMED_ONLY_WORKLOADS);
            }
        }
        // Found before anything starts: a missing jar should fail the run at once, not after the other workloads.
        Path sampleJar = settings.workloads().contains("K") ? FlashSaleWorkload.sampleJar(options.get("sample-jar"))
                : null;
        Path out = Path.of(options.getOrDefault("out", quick ? "target/benchmarks-quick.md" : "docs/engineering/benchmarks.md"));

        Map<String, LockContender> all = Contenders.all();
        List<LockContender> contenders = new ArrayList<>();
        for (String id : settings.contenders()) {
            LockContender contender = all.get(id);
            if (contender == null) {
                throw new IllegalArgumentException("--contenders: unknown '" + id + "', known: " + all.keySet());
            }
            contenders.add(contender);
        }

        RedisServerProcess server = null;
        RedisTarget target;
        if (options.containsKey("redis")) {
            target = RedisTarget.parse(options.get("redis"));
        }
        else {
            server = RedisServerProcess.startOnFreePort();
            target = new RedisTarget(server.host(), server.port());
        }
        Results results = new Results();
        Report.Environment environment;
        long violations;
        StoreWorkloads stores = null;
        RawCycleWorkloads raw = null;
        FlashSaleWorkload flashSale = null;
        try (RedisProbe probe = new RedisProbe(target)) {
            environment = Report.Environment.capture(probe, target, server != null, options.get("note"));
            Workloads workloads = new Workloads(target, settings, results, probe, server != null);
            ProcessWorkloads processes = new ProcessWorkloads(target, settings, results,
                    workloads.exclusionViolations);
            HeldLocksWorkload heldLocks = new HeldLocksWorkload(target, probe, results, server != null, Integer
                    .parseInt(options.getOrDefault("held", "" + HeldLocksWorkload.DEFAULT_HELD)), settings.measure());
            if (settings.workloads().contains("S") || settings.workloads().contains("R")) {
                // Started once for the run, before the clock: starting servers is not what S measures.
                stores = StoreWorkloads.start(settings, results, workloads.exclusionViolations, target);
                raw = settings.workloads().contains("R") ? new RawCycleWorkloads(settings, results,
                        workloads.exclusionViolations, stores.stores(), target) : null;
            }
            if (sampleJar != null) {
                // Started once for the run, like S's servers: starting the instances is not what K measures.
                log("  K starting %d sample instances (%s) and a warm-up sale with and without the lock",
                        FlashSaleWorkload.INSTANCES, sampleJar);
                flashSale = FlashSaleWorkload.start(sampleJar, target, probe, results, workloads.exclusionViolations);
            }
            long started = System.nanoTime();
            for (int repeat = 0; repeat < settings.repeats(); repeat++) {
                // Rotate the order every repeat so that no contender always runs first (or right after the JIT).
                List<LockContender> order = new ArrayList<>(contenders);
                java.util.Collections.rotate(order, -repeat);
                List<String> ids = new ArrayList<>(settings.contenders());
                java.util.Collections.rotate(ids, -repeat);
                log("repeat %d/%d", repeat + 1, settings.repeats());
                if (settings.workloads().contains("D")) {
                    log("  D ceiling, 64 threads");
                    workloads.ceiling(64);
                }
                if (settings.workloads().contains("A")) {
                    for (int threads : settings.threadCounts()) {
                        for (LockContender contender : order) {
                            log("  A %s, %d threads", contender.name(), threads);
                            workloads.uncontended(contender, threads);
                        }
                    }
                }
                if (settings.workloads().contains("P")) {
                    for (int permits : List.of(1, 3)) {
                        for (LockContender contender : order) {
                            if (contender.hasPermits()) {
                                log("  P %s, 8 threads on %d permit(s)", contender.name(), permits);
                                workloads.permits(contender, permits);
                            }
                        }
                    }
                }
                if (settings.workloads().contains("M")) {
                    for (int threads : List.of(1, 8)) {
                        for (LockContender contender : order) {
                            if (contender.holdsHandles()) {
                                log("  M %s, %d threads, two names per cycle", contender.name(), threads);
                                workloads.multiName(contender, threads);
                            }
                        }
                    }
                }
                if (settings.workloads().contains("B")) {
                    for (LockContender contender : order) {
                        log("  B %s, 8 threads on one key", contender.name());
                        workloads.contended(contender, 8, false);
                    }
                }
                if (settings.workloads().contains("B1")) {
                    for (LockContender contender : order) {
                        log("  B1 %s, one client, 8 threads on one key", contender.name());
                        workloads.contended(contender, 8, true);
                    }
                }
                if (settings.workloads().contains("B2")) {
                    for (int n : settings.processCounts()) {
                        for (int c = 0; c < order.size(); c++) {
                            log("  B2 %s, %d processes on one key", order.get(c).name(), n);
                            processes.handOff(ids.get(c), order.get(c), n);
                        }
                    }
                }
                if (settings.workloads().contains("C")) {
                    for (LockContender contender : order) {
                        log("  C %s", contender.name());
                        workloads.traffic(contender);
                    }
                }
                if (settings.workloads().contains("E")) {
                    for (LockContender contender : order) {
                        if (contender.renewsLeases() && contender.holdsHandles()) {
                            log("  E %s, %d locks held %s", contender.name(), settings.watchdogLocks(),
                                    settings.watchdogHold());
                            workloads.watchdog(contender, settings.watchdogLocks(), settings.watchdogLease(),
                                    settings.watchdogHold());
                        }
                    }
                }
                if (settings.workloads().contains("F")) {
                    AnnotationOverhead.run(target, settings, results, repeat);
                }
                if (settings.workloads().contains("G")) {
                    for (int c = 0; c < order.size(); c++) {
                        log("  G %s, %d JVMs x %d threads, %d us inside", order.get(c).name(), settings.hotJvms(),
                                settings.hotThreads(), settings.hotWork().toNanos() / 1000);
                        processes.hotKey(ids.get(c), order.get(c));
                    }
                }
                if (settings.workloads().contains("H")) {
                    for (LockContender contender : order) {
                        log("  H %s, %,d names, %d s lease", contender.name(), settings.footprintNames(),
                                settings.footprintLease().toSeconds());
                        workloads.footprint(contender);
                    }
                }
                if (stores != null) {
                    // S and R, paired
                    StoreRounds.run(stores, settings.workloads().contains("S"), raw, repeat, settings.warmup());
                }
                if (settings.workloads().contains(HeldLocksWorkload.MEASUREMENT)) {
                    heldLocks.run(order);
                }
                if (flashSale != null) {
                    log("  K flash sale: %d instances, %d buyers, %d in flight, stock %d, with and without the lock",
                            FlashSaleWorkload.INSTANCES, FlashSaleWorkload.BUYERS, FlashSaleWorkload.CONCURRENCY,
                            FlashSaleWorkload.STOCK);
                    flashSale.run(repeat);
                }
                // A long run should not lose everything to a late failure: the report so far, after every repeat.
                write(out, new Report(settings, contenders, stores == null ? List.of() : stores.stores(),
                        stores == null ? List.of() : stores.skipped(), results,
                        environment.withDuration(Duration.ofNanos(System.nanoTime() - started)), reproducible(args))
                        .render());
            }
            violations = workloads.exclusionViolations.get() + heldLocks.failures();
            environment = environment.withDuration(Duration.ofNanos(System.nanoTime() - started));
        }
        finally {
            if (flashSale != null) {
                flashSale.close();
            }
            if (stores != null) {
                stores.close();
            }
            if (server != null) {
                server.stop();
            }
        }
        String markdown = new Report(settings, contenders, stores == null ? List.of() : stores.stores(),
                stores == null ? List.of() : stores.skipped(), results, environment, reproducible(args)).render();
        write(out, markdown);
        System.out.println(markdown);
        if (violations > 0) {
            System.err.println("FAILED: " + violations
                    + " mutual-exclusion violations or L failures (see the violations columns of B, B2, G and S, K's "
                    + "oversold, L's failed / lost / left)");
            System.exit(1);
        }
        System.exit(0); // library threads (Redisson, Netty) must not keep the JVM alive
    }

    private static void write(Path out, String markdown) throws java.io.IOException {
        if (out.getParent() != null) {
            Files.createDirectories(out.getParent());
        }
        Files.writeString(out, markdown);
        log("wrote %s", out.toAbsolutePath());
    }

    private static List<Integer> integers(String list) {
        return Arrays.stream(list.split(",")).map(String::trim).map(Integer::valueOf).toList();
    }

    /** The arguments that change what is measured (not --note, --out), for the reproduce command. */
    private static String reproducible(String[] args) {
        List<String> kept = new ArrayList<>();
        for (int i = 0; i < args.length; i++) {
            if (args[i].equals("--note") || args[i].equals("--out")) {
                i++;
            }
            else if (!args[i].startsWith("--note=") && !args[i].startsWith("--out=")) {
                kept.add(args[i]);
            }
        }
        return String.join(" ", kept);
    }

    private static void log(String format, Object... args) {
        System.out.printf("[bench] " + format + "%n", args);
    }
}
