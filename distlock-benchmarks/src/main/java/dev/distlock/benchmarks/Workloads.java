package dev.distlock.benchmarks;

import java.lang.management.ManagementFactory;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;
import java.util.stream.Collectors;

import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.async.RedisAsyncCommands;

import dev.distlock.benchmarks.LockContender.Held;
import dev.distlock.benchmarks.LockContender.LockClient;

/** The workloads A to E, H, M and P; each call is one measurement of one contender, recorded into {@link Results}. */
final class Workloads {

    static final String CEILING = "Redis ceiling (EVALSHA, redis-benchmark style)";

    private final RedisTarget target;

    private final Settings settings;

    private final Results results;

    private final RedisProbe probe;

    private final com.sun.management.OperatingSystemMXBean os =
            (com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean();

    /** Set by workload B on any mutual-exclusion violation; the run then fails. */
    final AtomicLong exclusionViolations = new AtomicLong();

    /** True when the harness started the server itself, so workload H may empty it first. */
    private final boolean ownServer;

    Workloads(RedisTarget target, Settings settings, Results results, RedisProbe probe, boolean ownServer) {
        this.target = target;
        this.ownServer = ownServer;
        this.settings = settings;
        this.results = results;
        this.probe = probe;
    }

    static String uncontended(int threads) {
        return "A" + threads;
    }

    private static final Runnable NOTHING = () -> {
    };

    private static String runId() {
        return "bench:" + UUID.randomUUID().toString().substring(0, 8) + ":";
    }

    // ---------------------------------------------------------------- A: uncontended distinct keys

    void uncontended(LockContender contender, int threads) throws Exception {
        try (LockClient client = contender.connect(target, null)) {
            String prefix = runId();
            phase(client, prefix + "w:", threads, settings.warmup(), null);
            String measurement = uncontended(threads);
            phase(client, prefix + "m:", threads, settings.measure(), (cycles, nanos, cpuNanos, latencies, errors,
                    server) -> {
                results.add(measurement, contender.name(), "cycles/s", cycles * 1e9 / nanos);
                if (cycles > 0) {
                    results.add(measurement, contender.name(), "redis usec", server.usec() / (double) cycles);
                    results.add(measurement, contender.name(), "redis cpu", server.cpuSeconds() * 1e6 / cycles);
                    // Per command, so that the report can leave out what scripts call (see Report.renderA).
                    server.usecByCommand().forEach((command, usec) -> results.add(measurement, contender.name(),
                            "usec " + command, usec / (double) cycles));
                }
                results.add(measurement, contender.name(), "p50", latencies.micros(0.50));
                results.add(measurement, contender.name(), "p99", latencies.micros(0.99));
                results.add(measurement, contender.name(), "p99.9", latencies.micros(0.999));
                results.add(measurement, contender.name(), "cpu", cycles == 0 ? Double.NaN : cpuNanos / 1000.0 / cycles);
                if (errors > 0) {
                    results.note(measurement, contender.name(), errors + " failed cycles");
                }
            });
        }
    }

    private interface PhaseResult {
        void accept(long cycles, long nanos, long cpuNanos, LatencyRecorder.Percentiles latencies, long errors,
                RedisProbe.ServerCpu server);
    }

    /** One cycle of a phase: lock and unlock what the workload locks, under names no other cycle uses. */
    private interface Cycle {
        void run(LockClient client, String name) throws Exception;
    }

    private static final Cycle ONE_LOCK = (client, name) -> client.runLocked(name, NOTHING);

    private void phase(LockClient client, String prefix, int threads, Duration duration, PhaseResult sink)
            throws Exception {
        phase(client, prefix, threads, duration, ONE_LOCK, sink);
    }

    private void phase(LockClient client, String prefix, int threads, Duration duration, Cycle cycle,
            PhaseResult sink) throws Exception {
        List<LatencyRecorder> recorders = new ArrayList<>();
        AtomicLong errors = new AtomicLong();
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        long[] deadline = new long[1];
        List<Thread> workers = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            LatencyRecorder recorder = new LatencyRecorder();
            recorders.add(recorder);
            String threadPrefix = prefix + t + ":";
            Thread worker = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                }
                catch (InterruptedException ex) {
                    return;
                }
                long end = deadline[0];
                long i = 0;
                while (true) {
                    long start = System.nanoTime();
                    if (start >= end) {
                        break;
                    }
                    try {
                        cycle.run(client, threadPrefix + i++);
                        recorder.record(System.nanoTime() - start);
                    }
                    catch (Throwable ex) {
                        errors.incrementAndGet();
                        firstError.compareAndSet(null, ex);
                    }
                }
            }, "bench-" + t);
            worker.setDaemon(true);
            workers.add(worker);
            worker.start();
        }
        ready.await();
        RedisProbe.ServerCpu serverBefore = sink == null ? null : probe.serverCpu();
        long cpu = os.getProcessCpuTime();
        long start = System.nanoTime();
        deadline[0] = start + duration.toNanos();
        go.countDown();
        for (Thread worker : workers) {
            worker.join();
        }
        long nanos = System.nanoTime() - start;
        cpu = os.getProcessCpuTime() - cpu;
        RedisProbe.ServerCpu server = sink == null ? null : probe.serverCpu().minus(serverBefore);
        if (firstError.get() != null) {
            System.err.println("  " + errors.get() + " failed cycles, first: " + firstError.get());
        }
        if (sink != null) {
            long cycles = recorders.stream().mapToLong(LatencyRecorder::size).sum();
            sink.accept(cycles, nanos, cpu, new LatencyRecorder.Percentiles(recorders), errors.get(), server);
        }
    }

    // ---------------------------------------------------------------- P: permits

    /**
     * P: eight threads, each with a client instance of its own, take one of {@code permits} permits of one key and
     * do {@link #PERMIT_WORK} inside; never more than {@code permits} inside at once (checked as in B).
     */
    void permits(LockContender contender, int permits) throws Exception {
        contended(contender, 8, false, permits);
    }

    // ---------------------------------------------------------------- M: two names per cycle

    static String multiName(int threads) {
        return "M" + threads;
    }

    /**
     * M: every cycle locks two new names, {@code <n>:a} and {@code <n>:b}, and unlocks them, with nothing contended:
     * the cost of taking several names at once. Measured with the library's own multi-lock (when it has one) and
     * with the same two locks taken one after the other, so the ratio is what the multi-lock costs over two plain
     * locks.
     *
     * @param contender the lock under test
     * @param threads how many threads run cycles at once
     */
    void multiName(LockContender contender, int threads) throws Exception {
        String measurement = multiName(threads);
        try (LockClient client = contender.connect(target, null)) {
            String prefix = runId();
            for (boolean multi : contender.hasMultiLock() ? new boolean[] { true, false } : new boolean[] { false }) {
                String way = multi ? "multi" : "one by one";
                Cycle cycle = multi ? (c, name) -> c.runLockedAll(List.of(name + ":a", name + ":b"), NOTHING)
                        : (c, name) -> c.runLockedOneByOne(List.of(name + ":a", name + ":b"), NOTHING);
                phase(client, prefix + "w" + way + ":", threads, settings.warmup(), cycle, null);
                phase(client, prefix + "m" + way + ":", threads, settings.measure(), cycle,
                        (cycles, nanos, cpuNanos, latencies, errors, server) -> {
                            results.add(measurement, contender.name(), way + " cycles/s", cycles * 1e9 / nanos);
                            results.add(measurement, contender.name(), way + " p50", latencies.micros(0.50));
                            results.add(measurement, contender.name(), way + " p99", latencies.micros(0.99));
                            if (errors > 0) {
                                results.note(measurement, contender.name(), errors + " failed cycles (" + way + ")");
                            }
                        });
            }
        }
    }

    // ---------------------------------------------------------------- B, B1: contended single key

    /**
     * @param contender the lock under test
     * @param threads how many threads lock the one key
     * @param shared {@code false} (B): a client instance per thread, like separate processes; {@code true} (B1):
     *        one client instance for all threads, like one application instance (its threads may hand the lock on
     *        inside the JVM)
     */
    void contended(LockContender contender, int threads, boolean shared) throws Exception {
        contended(contender, threads, shared, 0);
    }

    static String permits(int permits) {
        return "P" + permits;
    }

    /** The work a holder of a permit does in P: a short protected call, so that more permits can serve more. */
    static final Duration PERMIT_WORK = Duration.ofMillis(1);

    /**
     * @param permits 0 for a lock (B, B1); else P: one of that many permits of the key, {@link #PERMIT_WORK} inside,
     *        a client instance per thread
     */
    private void contended(LockContender contender, int threads, boolean shared, int permits) throws Exception {
        String measurement = permits > 0 ? permits(permits) : shared ? "B1" : "B";
        int mostInside = Math.max(1, permits);
        List<LockClient> clients = new ArrayList<>();
        try {
            LockClient one = shared ? contender.connect(target, null) : null;
            for (int t = 0; t < threads; t++) {
                clients.add(shared ? one : contender.connect(target, null));
            }
            String key = runId() + "contended";
            AtomicInteger inside = new AtomicInteger();
            AtomicInteger lastOwner = new AtomicInteger(-1);
            AtomicLong ownerChanges = new AtomicLong();
            AtomicLong violations = new AtomicLong();
            long[] acquisitions = new long[threads];
            List<LatencyRecorder> waits = new ArrayList<>();
            long begin = System.nanoTime();
            long measureFrom = begin + settings.warmup().toNanos();
            long measureTo = measureFrom + settings.measure().toNanos();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> futures = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int me = t;
                LockClient client = clients.get(t);
                LatencyRecorder waitRecorder = new LatencyRecorder();
                waits.add(waitRecorder);
                futures.add(pool.submit(() -> {
                    while (true) {
                        long start = System.nanoTime();
                        if (start >= measureTo) {
                            return null;
                        }
                        Runnable work = () -> {
                            long acquiredAt = System.nanoTime();
                            if (inside.incrementAndGet() > mostInside) {
                                violations.incrementAndGet();
                            }
                            int previous = lastOwner.getAndSet(me);
                            if (acquiredAt >= measureFrom && acquiredAt < measureTo) {
                                acquisitions[me]++;
                                waitRecorder.record(acquiredAt - start);
                                if (previous != me) {
                                    ownerChanges.incrementAndGet();
                                }
                            }
                            if (permits > 0) {
                                LockSupport.parkNanos(PERMIT_WORK.toNanos());
                            }
                            else {
                                Thread.onSpinWait();
                            }
                            if (inside.get() > mostInside) {
                                violations.incrementAndGet();
                            }
                            inside.decrementAndGet();
                        };
                        if (permits > 0) {
                            client.runWithPermit(key, permits, work);
                        }
                        else {
                            client.runLocked(key, work);
                        }
                    }
                }));
            }
            for (Future<?> future : futures) {
                future.get(settings.warmup().plus(settings.measure()).toSeconds() + 120, TimeUnit.SECONDS);
            }
            pool.shutdown();
            double seconds = settings.measure().toNanos() / 1e9;
            long total = 0;
            double sumSquares = 0;
            for (long a : acquisitions) {
                total += a;
                sumSquares += (double) a * a;
            }
            LatencyRecorder.Percentiles waitPercentiles = new LatencyRecorder.Percentiles(waits);
            results.add(measurement, contender.name(), "acquisitions/s", total / seconds);
            results.add(measurement, contender.name(), "owner changes/s", ownerChanges.get() / seconds);
            results.add(measurement, contender.name(), "wait p50", waitPercentiles.micros(0.50) / 1000);
            results.add(measurement, contender.name(), "wait p99", waitPercentiles.micros(0.99) / 1000);
            results.add(measurement, contender.name(), "wait p99.9", waitPercentiles.micros(0.999) / 1000);
            results.add(measurement, contender.name(), "fairness",
                    total == 0 ? 0 : (double) total * total / (threads * sumSquares));
            results.add(measurement, contender.name(), "violations", violations.get());
            if (violations.get() > 0) {
                exclusionViolations.addAndGet(violations.get());
                results.note(measurement, contender.name(), "MUTUAL EXCLUSION VIOLATED " + violations.get() + " times");
                System.err.println("  MUTUAL EXCLUSION VIOLATED " + violations.get() + " times by " + contender.name());
            }
        }
        finally {
            for (LockClient client : new java.util.LinkedHashSet<>(clients)) {
                client.close();
            }
        }
    }

    // ---------------------------------------------------------------- C: Redis traffic per uncontended cycle

    void traffic(LockContender contender) throws Exception {
        try (LockClient client = contender.connect(target, null)) {
            String prefix = runId();
            cycles(client, prefix + "w:", 200);
            int cycles = settings.trafficCycles();
            RedisProbe.Traffic traffic = probe.measure(() -> cycles(client, prefix + "m:", cycles));
            results.add("C", contender.name(), "requests", traffic.requests() / (double) cycles);
            results.add("C", contender.name(), "commands", traffic.commands() / (double) cycles);
            results.add("C", contender.name(), "total_commands_processed",
                    traffic.totalCommandsProcessed() / (double) cycles);
            // Which share of each command's calls a client sent (the rest ran inside scripts): the report uses it
            // to count Redis time of workload A once per request (see Report.renderRedisCpu).
            traffic.commandCalls().forEach((command, calls) -> results.add("C", contender.name(),
                    "client share " + command, Math.min(1.0,
                            traffic.requestsByCommand().getOrDefault(command, 0L) / (double) calls)));
            results.note("C", contender.name(), "requests: " + perCycle(traffic.requestsByCommand(), cycles)
                    + "; commands: " + perCycle(traffic.commandCalls(), cycles));
        }
    }

    private static String perCycle(Map<String, Long> counts, int cycles) {
        return counts.entrySet().stream().filter(e -> e.getValue() * 100 >= cycles)
                .sorted((a, b) -> Long.compare(b.getValue(), a.getValue()))
                .map(e -> String.format("%s %.2f", e.getKey().toUpperCase(), e.getValue() / (double) cycles))
                .collect(Collectors.joining(", "));
    }

    private static void cycles(LockClient client, String prefix, int count) {
        try {
            for (int i = 0; i < count; i++) {
                client.runLocked(prefix + i, NOTHING);
            }
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    // ---------------------------------------------------------------- D: the server's ceiling

    private static final String CEILING_ACQUIRE = "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) "
            + "then return 1 else return 0 end";

    private static final String CEILING_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
            + "return redis.call('del', KEYS[1]) else return 0 end";

    /**
     * What Redis can do on this machine, measured the way {@code redis-benchmark -c 64 -P 1} does: 64 clients, each
     * on its own connection with one request in flight, run an acquire-like and then a release-like EVALSHA per new
     * key. Like redis-benchmark's event loop, the clients are callbacks on Lettuce's I/O threads rather than 64
     * blocked threads, so the client costs as little as it can. One cycle = both scripts: the same Redis work and
     * round trips as the cheapest possible lock + unlock, with no locking logic in the client.
     */
    void ceiling(int clients) throws Exception {
        RedisClient client = RedisClient.create(target.uri());
        List<StatefulRedisConnection<String, String>> connections = new ArrayList<>();
        try {
            for (int c = 0; c < clients; c++) {
                connections.add(client.connect());
            }
            String acquire = probe.redis().scriptLoad(CEILING_ACQUIRE);
            String release = probe.redis().scriptLoad(CEILING_RELEASE);
            String prefix = runId();
            ceilingPhase(connections, acquire, release, prefix + "w:", settings.warmup());
            long nanos = System.nanoTime();
            long scripts = ceilingPhase(connections, acquire, release, prefix + "m:", settings.measure());
            nanos = System.nanoTime() - nanos;
            results.add("D", CEILING, "evalsha/s", scripts * 1e9 / nanos);
            results.add("D", CEILING, "cycles/s", scripts / 2 * 1e9 / nanos);
        }
        finally {
            connections.forEach(StatefulRedisConnection::close);
            client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
        }
    }

    private static long ceilingPhase(List<StatefulRedisConnection<String, String>> connections, String acquire,
            String release, String prefix, Duration duration) throws Exception {
        long end = System.nanoTime() + duration.toNanos();
        AtomicLong scripts = new AtomicLong();
        List<CompletableFuture<Void>> clients = new ArrayList<>();
        for (int c = 0; c < connections.size(); c++) {
            CompletableFuture<Void> done = new CompletableFuture<>();
            new CeilingClient(connections.get(c).async(), acquire, release, prefix + c + ":", end, scripts, done)
                    .next();
            clients.add(done);
        }
        CompletableFuture.allOf(clients.toArray(new CompletableFuture[0])).get(duration.toSeconds() + 60,
                TimeUnit.SECONDS);
        return scripts.get();
    }

    /** One redis-benchmark-like client: the next request is sent when the previous reply arrives. */
    private record CeilingClient(RedisAsyncCommands<String, String> redis, String acquire, String release,
            String prefix, long end, AtomicLong scripts, CompletableFuture<Void> done) {

        private static final AtomicLong KEYS = new AtomicLong();

        void next() {
            if (System.nanoTime() >= end) {
                done.complete(null);
                return;
            }
            String key = prefix + KEYS.incrementAndGet();
            redis.<Long>evalsha(acquire, ScriptOutputType.INTEGER, new String[] { key }, "t", "30000")
                    .thenCompose(acquired -> redis.<Long>evalsha(release, ScriptOutputType.INTEGER,
                            new String[] { key }, "t"))
                    .whenComplete((released, error) -> {
                        if (error != null) {
                            done.completeExceptionally(error);
                        }
                        else {
                            scripts.addAndGet(2);
                            next();
                        }
                    });
        }
    }

    // ---------------------------------------------------------------- E: watchdog cost

    void watchdog(LockContender contender, int locks, Duration lease, Duration hold) throws Exception {
        String measurement = "E";
        ExecutorService owner = Executors.newSingleThreadExecutor(); // thread-owned locks: one owner thread
        try (LockClient client = contender.connect(target, lease)) {
            String prefix = runId() + "wd:";
            List<String> names = new ArrayList<>();
            List<Held> held = owner.submit(() -> {
                List<Held> list = new ArrayList<>();
                for (int i = 0; i < locks; i++) {
                    names.add(prefix + i);
                    list.add(client.acquire(prefix + i));
                }
                return list;
            }).get();
            RedisProbe.Traffic traffic = probe.measure(() -> {
                try {
                    Thread.sleep(hold.toMillis()); // holding the locks is the behaviour measured
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                }
            });
            long aliveInRedis = probe.countExisting(names.stream().map(client::redisKey).toList());
            long aliveByLibrary = owner.submit(() -> held.stream().filter(Held::stillHeld).count()).get();
            owner.submit(() -> held.forEach(Held::release)).get();
            double seconds = traffic.nanos() / 1e9;
            results.add(measurement, contender.name(), "requests/s", traffic.requests() / seconds);
            results.add(measurement, contender.name(), "requests/lock/s", traffic.requests() / seconds / locks);
            results.add(measurement, contender.name(), "commands/s", traffic.commands() / seconds);
            results.add(measurement, contender.name(), "alive", Math.min(aliveInRedis, aliveByLibrary));
            results.note(measurement, contender.name(), "requests: "
                    + perCycle(traffic.requestsByCommand(), 1).replaceAll(" (\\d+)\\.00", " $1"));
        }
        finally {
            owner.shutdownNow();
        }
    }

    // ---------------------------------------------------------------- H: footprint of many names

    /**
     * Locks and releases {@link Settings#footprintNames()} distinct names once each (8 threads, one client), then
     * reads how many keys and how much memory the server holds right after and once the lease has passed (the
     * client stays open meanwhile, so anything it keeps alive shows). On a server the harness started itself the
     * database is emptied first, so the counts are absolute; on a {@code --redis} server they are deltas.
     */
    void footprint(LockContender contender) throws Exception {
        String measurement = "H";
        if (ownServer) {
            probe.redis().flushall();
        }
        long keysBefore = probe.dbSize();
        long memoryBefore = probe.usedMemory();
        Duration lease = settings.footprintLease();
        try (LockClient client = contender.connect(target, lease)) {
            String prefix = runId() + "h:";
            int threads = 8;
            int names = settings.footprintNames();
            AtomicInteger next = new AtomicInteger();
            ExecutorService pool = Executors.newFixedThreadPool(threads);
            List<Future<?>> futures = new ArrayList<>();
            long nanos = System.nanoTime();
            for (int t = 0; t < threads; t++) {
                futures.add(pool.submit(() -> {
                    for (int i = next.getAndIncrement(); i < names; i = next.getAndIncrement()) {
                        client.runLocked(prefix + i, NOTHING);
                    }
                    return null;
                }));
            }
            for (Future<?> future : futures) {
                future.get(10, TimeUnit.MINUTES);
            }
            nanos = System.nanoTime() - nanos;
            pool.shutdown();
            results.add(measurement, contender.name(), "cycles/s", names * 1e9 / nanos);
            results.add(measurement, contender.name(), "keys after", probe.dbSize() - keysBefore);
            results.add(measurement, contender.name(), "memory after", (probe.usedMemory() - memoryBefore) / 1e6);
            String sample = sampleKeys();
            Thread.sleep(lease.toMillis() + 1000); // the lease passing is what is measured
            results.add(measurement, contender.name(), "keys after lease", probe.dbSize() - keysBefore);
            results.add(measurement, contender.name(), "memory after lease",
                    (probe.usedMemory() - memoryBefore) / 1e6);
            if (!sample.isEmpty()) {
                results.note(measurement, contender.name(), "keys left, e.g. " + sample);
            }
        }
    }

    /** @return up to three key names of the database, to say what a contender leaves behind */
    private String sampleKeys() {
        if (!ownServer) {
            return "";
        }
        return probe.redis().scan(io.lettuce.core.ScanArgs.Builder.limit(100)).getKeys().stream().limit(3)
                .map(k -> "`" + k + "`").collect(Collectors.joining(", "));
    }
}
