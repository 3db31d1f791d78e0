package dev.distlock.benchmarks;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.ToLongFunction;
import java.util.stream.IntStream;
import java.util.stream.Stream;

import dev.distlock.benchmarks.FlashSaleFigures.Entry;
import dev.distlock.benchmarks.FlashSaleFigures.HandOff;

/**
 * Workload K: the sample's flash sale on {@value #INSTANCES} instances, {@value #BUYERS} buyers,
 * {@value #CONCURRENCY} in flight, stock {@value #STOCK}, with and without the lock (DESIGN §8, issue 22 "measure
 * first"). Starts the sample's instances on the run's Redis ({@link SampleInstances}), runs one warm-up sale of
 * each kind, then per repeat one locked and one unlocked sale (the order alternates), reads the merged lock timeline
 * after each and records: requests/s, sold and oversold, the lock's and the body's busy fractions, the gaps
 * between a release and the next grant on the same instance and across instances, and the parts of a
 * cross-instance gap that can be told apart from outside ({@link FlashSaleFigures}, {@link ReleaseChannelTap}).
 */
final class FlashSaleWorkload implements AutoCloseable {

    /** The measurement's name in {@link Results}. */
    static final String MEASUREMENT = "K";

    /** The "contender" of the locked sales: the sample's {@code POST /api/products/1/deduct}. */
    static final String LOCKED = "locked";

    /** The "contender" of the unlocked sales: the demo's {@code POST /api/demo/products/1/deduct-unlocked}. */
    static final String UNLOCKED = "unlocked";

    static final int INSTANCES = 3;

    static final int BUYERS = 1000;

    static final int CONCURRENCY = 24;

    static final int STOCK = 100;

    /** Where the jar is looked for when neither {@code --sample-jar} nor {@code -Ddistlock.sample.jar} names one. */
    static final Path DEFAULT_JAR_DIR = Path.of("sample-app", "target");

    private static final int PINGS = 2000;

    private static final long TIMELINE_WAIT_NANOS = 10_000_000_000L;

    private final SampleInstances instances;

    private final SampleClient client;

    private final ReleaseChannelTap tap;

    private final RedisProbe probe;

    private final Results results;

    private final AtomicLong exclusionViolations;

    private FlashSaleWorkload(SampleInstances instances, ReleaseChannelTap tap, RedisProbe probe, Results results,
            AtomicLong exclusionViolations) {
        this.instances = instances;
        this.client = new SampleClient(instances.instances().get(0).baseUrl());
        this.tap = tap;
        this.probe = probe;
        this.results = results;
        this.exclusionViolations = exclusionViolations;
    }

    /**
     * Finds the sample's executable jar: the option, else the system property {@code distlock.sample.jar}, else the
     * one {@code ./mvnw -pl sample-app -am package} leaves in {@code sample-app/target}.
     *
     * @param option the {@code --sample-jar} option, or null
     * @return the jar
     * @throws IllegalStateException when there is none, saying how to build it
     */
    static Path sampleJar(String option) throws IOException {
        String named = option != null ? option : System.getProperty("distlock.sample.jar");
        if (named != null) {
            Path jar = Path.of(named);
            if (!Files.isRegularFile(jar)) {
                throw new IllegalStateException("Workload K: the sample jar " + jar.toAbsolutePath()
                        + " does not exist; build it with ./mvnw -B -q -pl sample-app -am package -DskipTests");
            }
            return jar;
        }
        if (Files.isDirectory(DEFAULT_JAR_DIR)) {
            try (Stream<Path> files = Files.list(DEFAULT_JAR_DIR)) {
                List<Path> jars = files.filter(f -> f.getFileName().toString().matches("sample-app-.*\\.jar"))
                        .filter(f -> !f.getFileName().toString().contains("-original")).sorted().toList();
                if (!jars.isEmpty()) {
                    return jars.get(0);
                }
            }
        }
        throw new IllegalStateException("Workload K needs the sample app's executable jar and found none in "
                + DEFAULT_JAR_DIR.toAbsolutePath() + ": build it with ./mvnw -B -q -pl sample-app -am package "
                + "-DskipTests (from the repository's root), or name it with --sample-jar PATH or "
                + "-Ddistlock.sample.jar=PATH");
    }

    /**
     * Starts the instances on the run's Redis and runs one warm-up sale with and one without the lock.
     *
     * @param jar the sample's executable jar
     * @param target the run's Redis
     * @param probe the harness's Redis connection, for the round-trip time
     * @param results where the figures go
     * @param exclusionViolations counts units oversold by a locked sale (the lock failed to exclude)
     * @return the workload, ready for its repeats
     * @throws Exception when an instance does not start or a sale fails; everything started is stopped
     */
    static FlashSaleWorkload start(Path jar, RedisTarget target, RedisProbe probe, Results results,
            AtomicLong exclusionViolations) throws Exception {
        SampleInstances instances = SampleInstances.start(jar, INSTANCES, target);
        ReleaseChannelTap tap = null;
        try {
            tap = new ReleaseChannelTap(target);
            FlashSaleWorkload workload = new FlashSaleWorkload(instances, tap, probe, results, exclusionViolations);
            // The instances' JIT, connection pools and H2 pages warm up on sales that are not measured.
            workload.client.flashSale(true, STOCK, BUYERS, CONCURRENCY);
            workload.client.flashSale(false, STOCK, BUYERS, CONCURRENCY);
            return workload;
        }
        catch (Exception | Error ex) {
            if (tap != null) {
                tap.close();
            }
            instances.close();
            throw ex;
        }
    }

    /**
     * One repeat: a locked and an unlocked sale, the order alternating so that neither always runs first.
     *
     * @param repeat the repeat's index
     * @throws IOException when a sale or a timeline read fails
     */
    void run(int repeat) throws IOException {
        results.add(MEASUREMENT, LOCKED, "ping p50", pingMicrosP50() / 1000);
        if (repeat % 2 == 0) {
            locked();
            unlocked();
        }
        else {
            unlocked();
            locked();
        }
    }

    private void locked() throws IOException {
        tap.drain();
        SampleClient.Sale sale = client.flashSale(true, STOCK, BUYERS, CONCURRENCY);
        List<Entry> entries = timeline(sale);
        long[] published = tap.drain();
        recordSale(LOCKED, sale, entries);
        results.add(MEASUREMENT, LOCKED, "lock busy",
                FlashSaleFigures.lockBusyFraction(entries, sale.startedAt(), sale.finishedAt()));
        results.add(MEASUREMENT, LOCKED, "holds without lock times",
                entries.stream().filter(Entry::bodyRan).filter(e -> !e.lockHeld()).count());
        List<HandOff> handOffs = FlashSaleFigures.handOffs(entries);
        List<HandOff> same = handOffs.stream().filter(h -> !h.crossInstance()).toList();
        List<HandOff> cross = handOffs.stream().filter(HandOff::crossInstance).toList();
        recordHandOffs("same", same);
        recordHandOffs("cross", cross);

        long[] seen = FlashSaleFigures.publishSeen(cross, published);
        long[] releaseToPublish = matched(cross, seen, (h, p) -> p - h.released());
        long[] publishToGrant = matched(cross, seen, (h, p) -> h.granted() - p);
        results.add(MEASUREMENT, LOCKED, "publishes", published.length);
        results.add(MEASUREMENT, LOCKED, "cross matched", releaseToPublish.length);
        results.add(MEASUREMENT, LOCKED, "cross release→publish p50",
                FlashSaleFigures.percentile(releaseToPublish, 0.5) / 1000);
        results.add(MEASUREMENT, LOCKED, "cross publish→grant p50",
                FlashSaleFigures.percentile(publishToGrant, 0.5) / 1000);
        if (sale.oversold() > 0) {
            exclusionViolations.addAndGet(sale.oversold());
            results.note(MEASUREMENT, LOCKED, "OVERSOLD " + sale.oversold() + " units with the lock");
            System.err.println("  K: the locked sale OVERSOLD " + sale.oversold() + " units");
        }
    }

    private void unlocked() throws IOException {
        SampleClient.Sale sale = client.flashSale(false, STOCK, BUYERS, CONCURRENCY);
        recordSale(UNLOCKED, sale, timeline(sale));
        tap.drain();
    }

    private void recordSale(String kind, SampleClient.Sale sale, List<Entry> entries) {
        results.add(MEASUREMENT, kind, "req/s", BUYERS / sale.seconds());
        results.add(MEASUREMENT, kind, "seconds", sale.seconds());
        results.add(MEASUREMENT, kind, "sold", sale.sold());
        results.add(MEASUREMENT, kind, "sold out", sale.soldOut());
        results.add(MEASUREMENT, kind, "errors", sale.errorCount());
        results.add(MEASUREMENT, kind, "oversold", sale.oversold());
        results.add(MEASUREMENT, kind, "instances", sale.instances());
        results.add(MEASUREMENT, kind, "timeline entries", entries.size());
        results.add(MEASUREMENT, kind, "body busy",
                FlashSaleFigures.bodyBusyFraction(entries, sale.startedAt(), sale.finishedAt()));
    }

    /** Gap percentiles in ms, and the medians of the parts around each gap. */
    private void recordHandOffs(String where, List<HandOff> handOffs) {
        results.add(MEASUREMENT, LOCKED, where + " hand-offs", handOffs.size());
        long[] gaps = FlashSaleFigures.sorted(handOffs, HandOff::gap);
        for (double q : new double[] {0.5, 0.9, 0.99}) {
            results.add(MEASUREMENT, LOCKED, where + " gap p" + Math.round(q * 100),
                    FlashSaleFigures.percentile(gaps, q) / 1000);
        }
        results.add(MEASUREMENT, LOCKED, where + " body end→release p50", p50(handOffs, HandOff::bodyEndToRelease));
        results.add(MEASUREMENT, LOCKED, where + " grant→body p50", p50(handOffs, HandOff::grantToBodyStart));
        results.add(MEASUREMENT, LOCKED, where + " body gap p50", p50(handOffs, HandOff::bodyGap));
    }

    private static double p50(List<HandOff> handOffs, ToLongFunction<HandOff> part) {
        return FlashSaleFigures.percentile(FlashSaleFigures.sorted(handOffs, part), 0.5) / 1000;
    }

    /** One part of each hand-off whose PUBLISH the tap saw, sorted. */
    private static long[] matched(List<HandOff> handOffs, long[] seen, PartWithPublish part) {
        return IntStream.range(0, handOffs.size()).filter(i -> seen[i] != Long.MIN_VALUE)
                .mapToLong(i -> part.of(handOffs.get(i), seen[i])).sorted().toArray();
    }

    /** A part of a hand-off measured against the time its PUBLISH was seen. */
    @FunctionalInterface
    private interface PartWithPublish {

        long of(HandOff handOff, long publishSeen);
    }

    /**
     * Reads the sale's timeline once every instance has written it: they flush every 200 ms, so wait until it has
     * an entry per buyer and the stock's reset, at most 10 s.
     */
    private List<Entry> timeline(SampleClient.Sale sale) throws IOException {
        long deadline = System.nanoTime() + TIMELINE_WAIT_NANOS;
        while (true) {
            List<Entry> entries = client.timeline(sale.startedAt(), sale.finishedAt());
            if (entries.size() >= BUYERS + 1 || System.nanoTime() - deadline > 0) {
                return entries;
            }
            try {
                Thread.sleep(200);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
                throw new IOException("Interrupted", ex);
            }
        }
    }

    /** The harness's own Redis round trip while no sale runs: what one acquire round trip costs at least. */
    private double pingMicrosP50() {
        long[] rtt = new long[PINGS];
        for (int i = 0; i < PINGS; i++) {
            long start = System.nanoTime();
            probe.redis().ping();
            rtt[i] = (System.nanoTime() - start) / 1000;
        }
        Arrays.sort(rtt);
        return FlashSaleFigures.percentile(rtt, 0.5);
    }

    /** Stops the tap and every instance. */
    @Override
    public void close() {
        try {
            tap.close();
        }
        finally {
            instances.close();
        }
    }
}
