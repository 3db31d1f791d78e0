package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.List;

/**
 * Run parameters from the command line.
 *
 * @param warmup warm-up before each timed measurement
 * @param measure length of each timed measurement
 * @param repeats how many times each measurement is repeated (interleaved across contenders)
 * @param trafficCycles cycles counted in workload C
 * @param watchdogLocks locks held in workload E
 * @param watchdogHold how long they are held
 * @param watchdogLease their watchdog lease
 * @param threadCounts thread counts of workload A
 * @param processCounts process counts of workload B2
 * @param hotJvms JVMs of workload G
 * @param hotThreads threads per JVM in workload G
 * @param hotWork busy work inside the lock in workload G
 * @param footprintNames lock names of workload H
 * @param footprintLease the lease of workload H ({@code distlock.lease-time} and its peers)
 * @param contenders contender ids to run
 * @param workloads workload letters to run
 * @param stores store ids of workload S ({@link Stores#ALL})
 */
record Settings(Duration warmup, Duration measure, int repeats, int trafficCycles, int watchdogLocks,
        Duration watchdogHold, Duration watchdogLease, List<Integer> threadCounts, List<Integer> processCounts,
        int hotJvms, int hotThreads, Duration hotWork, int footprintNames, Duration footprintLease,
        List<String> contenders, List<String> workloads, List<String> stores) {

    /**
     * Every workload letter, in run order. S (distlock on each store) is in the default run: at the defaults it adds
     * about 18 minutes (9 stores × 3 measurements × 13 s × 3 repeats, plus starting the servers) to a run of over
     * an hour. R (each store's raw lock cycle, S's yardstick) adds about as much again.
     */
    static final List<String> ALL_WORKLOADS = List.of("A", "B", "B1", "B2", "C", "D", "E", "F", "G", "H", "M", "P", "S", "R");

    /**
     * Workloads run only when named in {@code --workloads}: K starts the sample app's executable jar, which a plain
     * build of the benchmarks does not make ({@link FlashSaleWorkload#sampleJar}); L holds 100,000 locks or more and
     * wants a larger heap ({@code -Xmx4g}) than a default run.
     */
    static final List<String> NAMED_ONLY_WORKLOADS = List.of("K", "L");
}
