package dev.distlock.campaign;

import dev.distlock.test.support.campaign.CampaignTopologies;
import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.FaultKind;
import dev.distlock.test.support.campaign.Links;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;

import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.test.support.FaultProxy;
import dev.distlock.test.support.LockHistory;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import static org.awaitility.Awaitility.await;

/**
 * One run of the fault campaign on one topology, Jepsen-style: nodes in the test JVM and in a child JVM lock and
 * unlock three names in a loop while a seeded nemesis injects one bounded fault after another; then every fault is
 * healed and the run checks:
 * <ul>
 * <li>safety, with {@link LockHistory}: no holder counts on a lock (it was not told the lease was lost, expired
 * or {@code isHeld()} false) after another holder began, also when its work outlasts a fixed lease; no leader is
 * told {@code revoked} after another was told {@code granted}, unless its lease was reported lost before; fencing
 * tokens increasing in grant order, of the locks and of the leadership's lease;</li>
 * <li>every failed call threw a typed exception ({@link FailureKind#UNTYPED} counts are violations);</li>
 * <li>liveness: once the faults stop, every node is granted a lock again within a minute.</li>
 * </ul>
 * The seed fixes the nemesis' schedule (which fault, where, how long, the pauses between) and every worker's
 * choices; thread timing still varies, so a replay repeats the faults, not every interleaving.
 */
final class Campaign {

    private static final Logger log = LoggerFactory.getLogger(Campaign.class);

    static final int NODES = 2;

    static final int THREADS = 2;

    static final Duration LIVENESS_TIMEOUT = Duration.ofSeconds(60);

    static final Duration RECOVERY_TIMEOUT = Duration.ofSeconds(15);

    /** The windows of the fault phase that {@link #availablePercent()} counts. */
    static final Duration AVAILABILITY_WINDOW = Duration.ofMillis(500);

    private final CampaignTopology topology;

    private final long seed;

    private final Duration faultPhase;

    private final LockHistory history = new LockHistory();

    private final Recorder recorder = new Recorder();

    private final Map<FailureKind, LongAdder> failures = new EnumMap<>(FailureKind.class);

    private final Map<FaultKind, AtomicLong> faults = new EnumMap<>(FaultKind.class);

    private final Map<FaultKind, List<Long>> recoveries = new EnumMap<>(FaultKind.class);

    private final Map<String, AtomicLong> grantsByNode = new ConcurrentHashMap<>();

    private final List<String> untyped = new CopyOnWriteArrayList<>();

    /** Failures by node ({@code node-0}, {@code jvm-0}) and kind, to say what a node that was not granted did. */
    private final Map<String, Map<FailureKind, LongAdder>> failuresByNode = new ConcurrentHashMap<>();

    private final List<String> nemesisErrors = new CopyOnWriteArrayList<>();

    /** What the nemesis did and when ({@link System#nanoTime()} in µs, the scale of the history's intervals). */
    private final List<String> timeline = new CopyOnWriteArrayList<>();

    private final LongAdder grants = new LongAdder();

    /** Holds of this JVM's nodes in progress: holder thread to {node, start, fixed}. */
    private final Map<String, Object[]> holding = new ConcurrentHashMap<>();

    private final LongAdder lostReported = new LongAdder();

    private final LongAdder fixedHolds = new LongAdder();

    private final LongAdder terms = new LongAdder();

    private final LongAdder termsLost = new LongAdder();

    private volatile boolean stopping;

    /** The fault phase, {@link System#nanoTime()}. */
    private long faultsFrom;

    private long faultsUntil;

    Campaign(CampaignTopology topology, long seed, Duration faultPhase) {
        this.topology = topology;
        this.seed = seed;
        this.faultPhase = faultPhase;
        for (FailureKind kind : FailureKind.values()) {
            failures.put(kind, new LongAdder());
        }
    }

    /**
     * @param leaseMillis the lease
     * @return the engine settings of every campaign node
     */
    static LockConfig lockConfig(long leaseMillis) {
        return LockConfig.defaults().withLeaseTime(Duration.ofMillis(leaseMillis)).withWaitTime(Duration.ofSeconds(3))
                .withCommandTimeout(CampaignTopology.COMMAND_TIMEOUT);
    }

    /** Where every node's grants and failures go. */
    final class Recorder {

        /**
         * @param calledNanos when the acquire that granted it was called
         * @param countedOnUntilNanos the last moment the holder was not told of a loss ({@code endNanos} if never)
         * @param fixed whether the hold was on a fixed lease its work outlasts
         */
        void grant(String name, String node, long token, long calledNanos, long startNanos, long endNanos,
                boolean lost, long countedOnUntilNanos, boolean fixed) {
            history.record(name, node, token, calledNanos, startNanos, endNanos, lost, countedOnUntilNanos);
            grants.increment();
            if (lost) {
                lostReported.increment();
            }
            if (fixed) {
                fixedHolds.increment();
            }
            grantsByNode.computeIfAbsent(node, n -> new AtomicLong()).incrementAndGet();
        }

        /**
         * A leadership term, from {@code granted} to {@code revoked}, checked by the same history as the locks.
         *
         * @param countedOnUntilNanos {@code revokedNanos}, or the earlier report of the lease's loss
         */
        void term(String node, long token, long grantedNanos, long revokedNanos, long countedOnUntilNanos,
                boolean lost) {
            history.record(LeadershipWorker.TERM, node, token, grantedNanos, revokedNanos, lost, countedOnUntilNanos);
            terms.increment();
            if (lost) {
                termsLost.increment();
            }
        }

        void failure(String node, FailureKind kind, String detail) {
            failures.get(kind).increment();
            String nodeOnly = node.contains("/") ? node.substring(0, node.indexOf('/')) : node;
            failuresByNode.computeIfAbsent(nodeOnly, n -> new ConcurrentHashMap<>())
                    .computeIfAbsent(kind, k -> new LongAdder()).increment();
            if (kind == FailureKind.UNTYPED && untyped.size() < 10) {
                untyped.add(node + ": " + detail);
            }
        }
    }

    /**
     * Runs the campaign.
     *
     * @return the figures and the violations found
     */
    CampaignResult run() throws Exception {
        log.info("Campaign on {}: seed {} (replay: -Dcampaign.seed={} -Dcampaign.stores={}), {} s of faults",
                topology.name(), seed, seed, topology.name(), faultPhase.toSeconds());
        long started = System.nanoTime();
        // One seed replays every store; each store draws from a stream of its own.
        long runSeed = seed ^ topology.name().hashCode();
        Random nemesisRandom = new Random(runSeed);
        List<StoreLockService> services = new ArrayList<>();
        List<CampaignTopology.Opened> opened = new ArrayList<>();
        List<Thread> workers = new ArrayList<>();
        List<LeadershipWorker> candidates = new ArrayList<>();
        ChildNode child = null;
        long livenessMillis = -1;
        List<String> violations = new ArrayList<>();
        history.permits(LockLoop.SHARED, LockLoop.SHARED_PERMITS);
        try {
            for (int n = 0; n < NODES; n++) {
                String node = "node-" + n;
                CampaignTopology.Opened store = CampaignTopologies.open(topology.spec(node));
                opened.add(store);
                LockLoop.LostLeases lost = new LockLoop.LostLeases();
                StoreLockService service = new StoreLockService(store.store(),
                        lockConfig(topology.leaseMillis()), CompositeLockListener.of(List.of(lost)));
                service.start();
                services.add(service);
                for (int t = 0; t < THREADS; t++) {
                    String holder = node + "/" + t;
                    Thread worker = new Thread(new LockLoop(service, runSeed * 31 + n * 7 + t, () -> stopping,
                            sink(node, holder), lost, store.store().traits().permits(),
                            Duration.ofMillis(topology.fixedLeaseMillis())), "campaign-" + holder);
                    worker.setDaemon(true);
                    worker.start();
                    workers.add(worker);
                }
                LeadershipWorker candidate = new LeadershipWorker(runSeed * 31 + n * 7 + 500, lost, termSink(node));
                candidates.add(candidate);
                candidate.start(service);
            }
            child = new ChildNode("jvm-0", recorder, topology.spec("jvm-0"), String.valueOf(THREADS),
                    String.valueOf(runSeed * 31 + 1000), String.valueOf(topology.leaseMillis()),
                    String.valueOf(topology.fixedLeaseMillis()));
            List<String> everyNode = List.of("node-0", "node-1", "jvm-0");
            await("every node's first grant on " + topology.name()).atMost(Duration.ofSeconds(60))
                    .until(() -> everyNode.stream().allMatch(node -> grantsOf(node) > 0));

            faultsFrom = System.nanoTime();
            nemesis(nemesisRandom, child);
            faultsUntil = System.nanoTime();

            long healed = System.nanoTime();
            topology.heal();
            if (topology.links() != null) {
                topology.links().passAll();
            }
            child.resume();
            if (!child.isAlive()) {
                child.restart();
            }
            Map<String, Long> before = new ConcurrentHashMap<>();
            everyNode.forEach(node -> before.put(node, grantsOf(node)));
            Map<String, Map<FailureKind, Long>> failedBefore = failuresByNode();
            long childLinesBefore = child.linesRead();
            java.util.function.Predicate<String> grantedAgain = node -> grantsOf(node) > before.get(node);
            try {
                await("every node granted again after the faults stopped").atMost(LIVENESS_TIMEOUT)
                        .pollInterval(Duration.ofMillis(50))
                        .until(() -> everyNode.stream().allMatch(grantedAgain));
                livenessMillis = (System.nanoTime() - healed) / 1_000_000;
            }
            catch (org.awaitility.core.ConditionTimeoutException ex) {
                Map<String, Map<FailureKind, Long>> failedAfter = failuresByNode();
                StringBuilder idle = new StringBuilder();
                for (String node : everyNode) {
                    if (!grantedAgain.test(node)) {
                        Map<FailureKind, Long> since = new EnumMap<>(FailureKind.class);
                        failedAfter.getOrDefault(node, Map.of()).forEach((kind, count) -> since.put(kind,
                                count - failedBefore.getOrDefault(node, Map.of()).getOrDefault(kind, 0L)));
                        idle.append("; ").append(node).append(" failed since: ").append(since);
                        if (node.equals(child.name())) {
                            idle.append(", printed ").append(child.linesRead() - childLinesBefore)
                                    .append(" lines since; ").append(child.describe());
                        }
                    }
                }
                violations.add("liveness: not every node was granted a lock within " + LIVENESS_TIMEOUT
                        + " of the faults stopping: grants by node " + grantsByNode + idle
                        + (nemesisErrors.isEmpty() ? "" : "; faults not injected or healed: " + nemesisErrors));
            }
        }
        finally {
            stopping = true;
            for (Thread worker : workers) {
                worker.join(TimeUnit.SECONDS.toMillis(30));
            }
            for (LeadershipWorker candidate : candidates) {
                candidate.close();
            }
            if (child != null) {
                child.close();
            }
            services.forEach(StoreLockService::close);
            opened.forEach(CampaignTopology.Opened::closeResources);
        }
        try {
            history.assertConsistent();
        }
        catch (AssertionError ex) {
            violations.add("safety: " + ex.getMessage());
            log.error("{}: the nemesis' timeline, to compare with the violation's intervals (child JVM output in "
                    + "target/campaign-logs):\n  {}", topology.name(), String.join("\n  ", timeline));
        }
        if (!untyped.isEmpty()) {
            violations.add(failures.get(FailureKind.UNTYPED).sum() + " untyped failure(s), e.g. " + untyped);
        }
        Map<FailureKind, Long> failureCounts = new EnumMap<>(FailureKind.class);
        failures.forEach((kind, count) -> failureCounts.put(kind, count.sum()));
        Map<FaultKind, Long> faultCounts = new EnumMap<>(FaultKind.class);
        faults.forEach((kind, count) -> faultCounts.put(kind, count.get()));
        Map<FaultKind, List<Long>> recoveryMillis = new EnumMap<>(FaultKind.class);
        synchronized (recoveries) {
            recoveries.forEach((kind, list) -> recoveryMillis.put(kind, List.copyOf(list)));
        }
        CampaignResult result = new CampaignResult(topology.name(), seed, faultPhase,
                Duration.ofNanos(System.nanoTime() - started), grants.sum(), lostReported.sum(), fixedHolds.sum(),
                terms.sum(), termsLost.sum(), sharedGrants(), severalHolds(), longestGapMillis(),
                availablePercent(),
                failureCounts,
                faultCounts, recoveryMillis, livenessMillis, List.copyOf(nemesisErrors), violations,
                topology.guarantee());
        log.info("{}", result.summary());
        return result;
    }

    /**
     * Waits (at most 5 s) for a node of this JVM to be 100 ms into a hold, which is then a long one (short holds
     * end within 20 ms), so that a fault about one node lands while it holds a lock.
     */
    private @org.jspecify.annotations.Nullable String busyNode() {
        try {
            return await("a node in the middle of a long hold").atMost(Duration.ofSeconds(5))
                    .pollInterval(Duration.ofMillis(10)).until(() -> {
                        long now = System.nanoTime();
                        return holding.values().stream().filter(h -> now - (long) h[1] > 100_000_000L)
                                .map(h -> (String) h[0]).findFirst().orElse(null);
                    }, java.util.Objects::nonNull);
        }
        catch (org.awaitility.core.ConditionTimeoutException ex) {
            return null;
        }
    }

    /**
     * @return a node of this JVM working under a fixed lease right now (F4 shows only on a node cut off while its
     *         fixed lease runs out), else one 100 ms into any hold, else null; without waiting
     */
    private @org.jspecify.annotations.Nullable String fixedLeaseHolder() {
        long now = System.nanoTime();
        String fixed = holding.values().stream().filter(h -> (boolean) h[2]).map(h -> (String) h[0]).findFirst()
                .orElse(null);
        if (fixed != null) {
            timeline.add(now / 1000 + " µs: " + fixed + " works under a fixed lease");
            log.info("{}: {} works under a fixed lease: a partition is aimed at it", topology.name(), fixed);
            return fixed;
        }
        return holding.values().stream().filter(h -> now - (long) h[1] > 100_000_000L).map(h -> (String) h[0])
                .findFirst().orElse(null);
    }

    /** The longest time in which no node was granted any lock: the worst unavailability of the run. */
    private long longestGapMillis() {
        long longest = 0;
        List<LockHistory.Grant> all = history.grants().stream()
                .filter(grant -> LockLoop.NAMES.contains(grant.name())).toList();
        for (int i = 1; i < all.size(); i++) {
            longest = Math.max(longest, all.get(i).startNanos() - all.get(i - 1).startNanos());
        }
        return longest / 1_000_000;
    }

    /** @return grants of the name shared by several holders ({@link LockLoop#SHARED}) */
    private long sharedGrants() {
        return history.grants().stream().filter(grant -> grant.name().equals(LockLoop.SHARED)).count();
    }

    /** @return turns that held several names together: grants of one node whose work began at the same moment */
    private long severalHolds() {
        return history.grants().stream().filter(grant -> LockLoop.NAMES.contains(grant.name()))
                .collect(java.util.stream.Collectors.groupingBy(grant -> grant.node() + "@" + grant.startNanos(),
                        java.util.stream.Collectors.counting()))
                .values().stream().filter(count -> count > 1).count();
    }

    /**
     * The share of the fault phase in which locking was available: the share of its {@link #AVAILABILITY_WINDOW}s
     * in which some node was granted one of {@link LockLoop#NAMES}. Short holds end within 20 ms and six workers
     * contend for three names, so a window without any grant is one in which the store could not grant (or every
     * name was in a rare long hold).
     *
     * @return the percentage, 0 to 100
     */
    private double availablePercent() {
        long window = AVAILABILITY_WINDOW.toNanos();
        int windows = (int) Math.max(1, (faultsUntil - faultsFrom) / window);
        java.util.BitSet granted = new java.util.BitSet(windows);
        for (LockHistory.Grant grant : history.grants()) {
            long offset = grant.startNanos() - faultsFrom;
            if (LockLoop.NAMES.contains(grant.name()) && offset >= 0 && offset < (long) windows * window) {
                granted.set((int) (offset / window));
            }
        }
        return 100.0 * granted.cardinality() / windows;
    }

    private Map<String, Map<FailureKind, Long>> failuresByNode() {
        Map<String, Map<FailureKind, Long>> counts = new java.util.HashMap<>();
        failuresByNode.forEach((node, kinds) -> {
            Map<FailureKind, Long> byKind = new EnumMap<>(FailureKind.class);
            kinds.forEach((kind, count) -> byKind.put(kind, count.sum()));
            counts.put(node, byKind);
        });
        return counts;
    }

    private long grantsOf(String node) {
        AtomicLong count = grantsByNode.get(node);
        return count == null ? 0 : count.get();
    }

    private LockLoop.Sink sink(String node, String holder) {
        return new LockLoop.Sink() {
            @Override
            public void began(String name, long token, long calledNanos, long startNanos, long deadlineNanos,
                    boolean fixed) {
                // Recorded when the work ends (nothing here can crash in the middle); only kept to aim faults.
                holding.put(holder, new Object[] { node, startNanos, fixed });
            }

            @Override
            public void lostNoticed(String name, long token, long countedOnUntilNanos) {
                // Reported with the end of the work (nothing here can crash in the middle).
            }

            @Override
            public void ended(String name, long token, long calledNanos, long startNanos, long endNanos,
                    boolean lost, long countedOnUntilNanos, boolean fixed) {
                holding.remove(holder);
                recorder.grant(name, node, token, calledNanos, startNanos, endNanos, lost, countedOnUntilNanos,
                        fixed);
            }

            @Override
            public void timedOut() {
                recorder.failure(holder, FailureKind.TIMEOUT, "");
            }

            @Override
            public void failed(Throwable failure) {
                recorder.failure(holder, FailureKind.of(failure), failure.getClass().getName() + ": "
                        + failure.getMessage());
            }
        };
    }

    private LeadershipWorker.Sink termSink(String node) {
        return new LeadershipWorker.Sink() {
            @Override
            public void granted(long token, long grantedNanos) {
                // Recorded when the term ends (nothing here can crash in the middle).
            }

            @Override
            public void revoked(long token, long grantedNanos, long revokedNanos, long countedOnUntilNanos,
                    boolean lost) {
                recorder.term(node, token, grantedNanos, revokedNanos, countedOnUntilNanos, lost);
            }
        };
    }

    private void nemesis(Random random, ChildNode child) throws InterruptedException {
        List<FaultKind> kinds = new ArrayList<>(topology.serverFaults());
        if (topology.links() != null) {
            kinds.addAll(List.of(FaultKind.PARTITION, FaultKind.DELAY, FaultKind.RESET));
        }
        kinds.addAll(List.of(FaultKind.KILL_HOLDER, FaultKind.PAUSE_HOLDER));
        kinds = new ArrayList<>(new java.util.TreeSet<>(kinds));
        // -Dcampaign.faults=KILL_HOLDER,PARTITION narrows the nemesis to those kinds, to dig into one of them.
        String only = System.getProperty("campaign.faults", "").trim();
        if (!only.isEmpty()) {
            List<String> wanted = List.of(only.toUpperCase(java.util.Locale.ROOT).split("\\s*,\\s*"));
            kinds.removeIf(kind -> !wanted.contains(kind.name()));
            if (kinds.isEmpty()) {
                throw new IllegalArgumentException("-Dcampaign.faults=" + only + " names no fault of "
                        + topology.name());
            }
        }
        long end = System.nanoTime() + faultPhase.toNanos();
        while (System.nanoTime() < end) {
            FaultKind kind = kinds.get(random.nextInt(kinds.size()));
            Duration duration = Duration.ofMillis(300 + random.nextInt(2700));
            CampaignTopology.Injected injected;
            timeline.add(System.nanoTime() / 1000 + " µs: injecting " + kind);
            try {
                injected = inject(kind, random, duration, child);
            }
            catch (RuntimeException ex) {
                nemesisErrors.add(kind + ": " + ex);
                log.warn("{}: could not inject {}", topology.name(), kind, ex);
                topology.heal();
                continue;
            }
            faults.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
            timeline.add(System.nanoTime() / 1000 + " µs: " + injected.description());
            log.info("{}: {} for {} ms", topology.name(), injected.description(), duration.toMillis());
            // The fault lasts this long: the sleep is the fault's duration, not a wait for something.
            TimeUnit.MILLISECONDS.sleep(duration.toMillis());
            long healing = System.nanoTime();
            timeline.add(healing / 1000 + " µs: healing " + kind);
            try {
                injected.heal().run();
            }
            catch (RuntimeException ex) {
                nemesisErrors.add("healing " + kind + ": " + ex);
                log.warn("{}: could not heal {}", topology.name(), kind, ex);
                topology.heal();
            }
            awaitRecovery(kind, healing);
            // The quiet time between two faults.
            TimeUnit.MILLISECONDS.sleep(200 + random.nextInt(800));
        }
    }

    /**
     * Times the recovery from a fault, from the moment its healing began (a restart, the end of a partition; for
     * Sentinel and Cluster the wait for a healthy topology is part of it) until every node was granted a lock
     * again (at most {@link #RECOVERY_TIMEOUT}; a slower recovery is recorded as that long, and the liveness check
     * at the end still applies).
     */
    private void awaitRecovery(FaultKind kind, long healed) {
        Map<String, Long> before = new java.util.HashMap<>();
        grantsByNode.forEach((node, count) -> before.put(node, count.get()));
        try {
            await("every node granted again after " + kind).atMost(RECOVERY_TIMEOUT)
                    .pollInterval(Duration.ofMillis(10))
                    .until(() -> before.entrySet().stream().allMatch(e -> grantsOf(e.getKey()) > e.getValue()));
        }
        catch (org.awaitility.core.ConditionTimeoutException ex) {
            log.info("{}: not every node was granted within {} of healing {}", topology.name(), RECOVERY_TIMEOUT,
                    kind);
        }
        synchronized (recoveries) {
            recoveries.computeIfAbsent(kind, k -> new ArrayList<>()).add((System.nanoTime() - healed) / 1_000_000);
        }
    }

    private CampaignTopology.Injected inject(FaultKind kind, Random random, Duration duration, ChildNode child) {
        if (topology.serverFaults().contains(kind)) {
            if (kind == FaultKind.CLOCK_STEP) {
                FixedHoldAim.awaitStart(holding, timeline);
            }
            CampaignTopology.Injected injected = kind == FaultKind.PARTITION_MASTER_WITH_NODE
                    || kind == FaultKind.FAILOVER_UNDER_PARTITION ? topology.inject(kind, random, duration, busyNode())
                    : kind == FaultKind.PARTITION ? topology.inject(kind, random, duration, fixedLeaseHolder())
                            : topology.inject(kind, random, duration);
            if (injected != null) {
                return injected;
            }
            // The topology left this one to the campaign: a fault of one node's links.
        }
        Links links = topology.links();
        switch (kind) {
            case KILL_HOLDER:
                try {
                    child.kill();
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    throw new IllegalStateException(ex);
                }
                return new CampaignTopology.Injected("SIGKILL holder JVM " + child.name(), child::restart);
            case PAUSE_HOLDER:
                child.pause();
                return new CampaignTopology.Injected("SIGSTOP holder JVM " + child.name(), child::resume);
            case PARTITION:
            case DELAY:
            case RESET: {
                List<String> nodes = new ArrayList<>(links.nodes());
                Collections.sort(nodes);
                String node = nodes.get(random.nextInt(nodes.size()));
                List<FaultProxy> all = links.of(node);
                List<FaultProxy> chosen = new ArrayList<>();
                for (FaultProxy proxy : all) {
                    if (random.nextBoolean()) {
                        chosen.add(proxy);
                    }
                }
                if (chosen.isEmpty()) {
                    chosen.add(all.get(random.nextInt(all.size())));
                }
                String what = node + " to " + chosen.size() + " of " + all.size() + " server(s)";
                if (kind == FaultKind.PARTITION) {
                    chosen.forEach(FaultProxy::drop);
                    return new CampaignTopology.Injected("partition " + what, () -> chosen.forEach(FaultProxy::pass));
                }
                if (kind == FaultKind.DELAY) {
                    Duration delay = Duration.ofMillis(20 + random.nextInt(480));
                    chosen.forEach(proxy -> proxy.delay(delay));
                    return new CampaignTopology.Injected("delay " + delay.toMillis() + " ms " + what,
                            () -> chosen.forEach(FaultProxy::pass));
                }
                chosen.forEach(proxy -> {
                    proxy.refuse();
                    proxy.resetConnections();
                });
                return new CampaignTopology.Injected("reset and refuse " + what,
                        () -> chosen.forEach(FaultProxy::pass));
            }
            default:
                return topology.inject(kind, random, duration);
        }
    }
}
