package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.embedded.RedisServerProcess;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.condition.EnabledIfSystemProperty;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Workloads S and R start on every store of {@code --stores} and measure something: each store is started as a run
 * starts it (its fixture, found on this module's class path), measured for a fraction of a second, and must have
 * counted cycles and grants without a failed call or an exclusion violation. A store whose server binary is missing
 * here is skipped with the fixture's reason. This catches a store that no longer starts from the benchmarks (a
 * fixture's class missing from the class path, a server that does not come up) before a long run does.
 * <p>
 * It checks the benchmark harness, not the library, and takes about 40 s on 2 cores: {@code ./mvnw verify}, which must
 * stay under 10 minutes, skips it (JUnit reports why), and CI runs it in its {@code -Dcampaign} pass.
 */
@EnabledIfSystemProperty(named = "campaign", matches = ".*",
        disabledReason = "runs with -Dcampaign (CI's campaign pass), not in ./mvnw verify")
class StoreWorkloadsStartTests {

    /**
     * The reference store's other set-ups, which measure its cycle again: they have no raw cycle (workload R). Every
     * other store has one, its fixture's {@code rawCycle()}.
     */
    private static final List<String> NO_RAW = List.of("redis-replica", "redis-replica-off", "redlock");

    private static RedisServerProcess redis;

    @BeforeAll
    static void startRedis() {
        redis = RedisServerProcess.startOnFreePort();
    }

    @AfterAll
    static void stopRedis() {
        redis.close();
    }

    static List<String> stores() {
        return Stores.all();
    }

    @ParameterizedTest
    @MethodSource("stores")
    void startsAndMeasuresBriefly(String id) throws Exception {
        Settings settings = new Settings(Duration.ofMillis(50), Duration.ofMillis(250), 1, 1, 1, Duration.ZERO,
                Duration.ofSeconds(3), List.of(1), List.of(2), 3, 4, Duration.ofNanos(50_000), 1,
                Duration.ofSeconds(5), List.of(), List.of("S", "R"), List.of(id));
        Results results = new Results();
        AtomicLong violations = new AtomicLong();
        RedisTarget target = new RedisTarget(redis.host(), redis.port());
        try (StoreWorkloads workloads = StoreWorkloads.start(settings, results, violations, target)) {
            Assumptions.assumeTrue(workloads.skipped().isEmpty(), () -> "store not on this machine: "
                    + workloads.skipped());
            StoreUnderTest store = workloads.stores().get(0);
            StoreRounds.run(workloads, true, new RawCycleWorkloads(settings, results, violations, workloads.stores(),
                    target), 0, settings.warmup());
            assertThat(results.median(StoreWorkloads.uncontended(1), store.name(), "cycles/s")).isPositive();
            assertThat(results.median(StoreWorkloads.uncontended(8), store.name(), "cycles/s")).isPositive();
            assertThat(results.median(StoreWorkloads.uncontended(8), store.name(), "errors")).isZero();
            assertThat(results.median(StoreWorkloads.HOT, store.name(), "grants/s")).isPositive();
            assertThat(results.median(StoreWorkloads.HOT, store.name(), "errors")).isZero();

            boolean raw = !NO_RAW.contains(id);
            assertThat(results.has(RawCycleWorkloads.uncontended(8), store.name(), "cycles/s"))
                    .as("%s: workload R measured its raw cycle (the fixture's rawCycle())", id).isEqualTo(raw);
            if (raw) {
                assertThat(results.median(RawCycleWorkloads.uncontended(1), store.name(), "cycles/s")).isPositive();
                assertThat(results.median(RawCycleWorkloads.uncontended(8), store.name(), "errors")).isZero();
                assertThat(results.median(RawCycleWorkloads.HOT, store.name(), "grants/s")).isPositive();
                assertThat(results.median(RawCycleWorkloads.HOT, store.name(), "errors")).isZero();
            }
        }
        assertThat(violations).hasValue(0);
    }
}
