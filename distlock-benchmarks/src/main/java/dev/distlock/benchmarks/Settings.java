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
 * @param contenders contender ids to run
 * @param workloads workload letters to run
 */
record Settings(Duration warmup, Duration measure, int repeats, int trafficCycles, int watchdogLocks,
        Duration watchdogHold, Duration watchdogLease, List<Integer> threadCounts, List<String> contenders,
        List<String> workloads) {
}
