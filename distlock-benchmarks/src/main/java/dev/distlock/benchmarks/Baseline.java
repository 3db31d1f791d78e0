package dev.distlock.benchmarks;

import java.util.Map;

/**
 * The "before" of the report's before/after section: medians of the previous published run (docs/benchmarks.md of
 * commit 71bf137, the engine before the store SPI split, same harness and machine kind, 3 repeats of 5 s) and the
 * multi-process hand-off numbers of the issue that asked for workload B2 (measured before the hand-off engine).
 */
final class Baseline {

    private Baseline() {
    }

    static final String SOURCE = "docs/benchmarks.md at commit 71bf137 (3 × 5 s, load average 2.1 at start)";

    static final String ISSUE = "the B2 issue (2/3/4 processes, before the hand-off engine)";

    /** A: cycles/s by thread count, then by contender. */
    static final Map<Integer, Map<String, Double>> A_CYCLES = Map.of(
            1, Map.of(Report.DISTLOCK, 5_341.0, Report.TEXTBOOK, 7_315.0, Report.REDISSON, 4_696.0),
            8, Map.of(Report.DISTLOCK, 16_931.0, Report.TEXTBOOK, 24_228.0, Report.REDISSON, 6_971.0),
            64, Map.of(Report.DISTLOCK, 25_029.0, Report.TEXTBOOK, 27_773.0, Report.REDISSON, 7_776.0));

    static final double A64_DISTLOCK_CLIENT_CPU = 45.7;

    static final double B_DISTLOCK_OWNER_CHANGES = 2_900;

    static final double B_REDISSON_OWNER_CHANGES = 1_436;

    static final double B_DISTLOCK_WAIT_P99 = 4.28;

    static final double C_DISTLOCK_COMMANDS = 7.00;

    /** B2 owner changes/s by process count, from the issue. */
    static final Map<Integer, Double> B2_DISTLOCK = Map.of(2, 99.0, 3, 386.0, 4, 800.0);

    static final Map<Integer, Double> B2_REDISSON = Map.of(2, 975.0, 3, 1_138.0, 4, 1_106.0);

    /** distlock's B2 wait p99 in the issue (about the same at 2, 3 and 4 processes), ms. */
    static final double B2_DISTLOCK_WAIT_P99 = 103;

    /** Redisson's B2 wait p99 range in the issue, ms. */
    static final String B2_REDISSON_WAIT_P99 = "5–13";
}
