package dev.distlock.test.support.campaign;

import java.time.Duration;
import java.util.List;

import dev.distlock.embedded.RedisServerBinary;
import dev.distlock.embedded.RedisServerProcess;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * {@link FakedClock} on a real {@code redis-server} (its {@code TIME} is its wall clock): steps both ways, a drift,
 * and the gain limit the campaign's faults within the drift margin rely on. Skipped, saying so, without libfaketime
 * or with a {@code redis-server} that does not run under it (Debian's, linked with jemalloc).
 */
class FakedClockTests {

    /** How far apart this JVM's and the server's reading of the clock may be: the round trip of one command. */
    private static final long SLACK_MILLIS = 50;

    private FakedClock clock;

    @BeforeEach
    void clock() {
        clock = FakedClock.create("redis-server of FakedClockTests", RedisServerBinary.path()).orElse(null);
        Assumptions.assumeTrue(clock != null, "FakedClock tests SKIPPED: no libfaketime (Debian's faketime package), "
                + "or " + RedisServerBinary.path() + " does not run under it (see the WARN above)");
    }

    @AfterEach
    void close() {
        if (clock != null) {
            clock.close();
        }
    }

    @Test
    void stepsTheWallClockOfAServerStartedUnderItBothWays() {
        try (RedisServerProcess server = start()) {
            assertThat(aheadMillis(server)).isBetween(-SLACK_MILLIS, SLACK_MILLIS);
            assertThat(clock.step(100_000_000L)).isEqualTo(100_000_000L);
            assertThat(aheadMillis(server)).isBetween(100_000 - SLACK_MILLIS, 100_000 + SLACK_MILLIS);
            clock.step(-150_000_000L);
            assertThat(clock.offsetMicros()).isEqualTo(-50_000_000L);
            assertThat(aheadMillis(server)).isBetween(-50_000 - SLACK_MILLIS, -50_000 + SLACK_MILLIS);
        }
    }

    @Test
    void driftsTheServersClockUntilStoppedThenKeepsTheOffset() {
        try (RedisServerProcess server = start()) {
            clock.drift(1.0); // twice as fast: 100 ms gained within about 100 ms
            await().atMost(Duration.ofSeconds(5)).until(() -> clock.offsetMicros() >= 100_000);
            clock.stopDrift();
            long reached = clock.offsetMicros();
            assertThat(aheadMillis(server)).isBetween(reached / 1000 - SLACK_MILLIS, reached / 1000 + SLACK_MILLIS);
        }
    }

    @Test
    void limitsWhatStepsForwardGainInAnySecondButNotStepsBack() {
        clock.limitGain(10_000);
        assertThat(clock.step(8_000)).isEqualTo(8_000);
        assertThat(clock.step(8_000)).as("cut at the limit").isEqualTo(2_000);
        assertThat(clock.step(1_000)).as("nothing left within the second").isZero();
        assertThat(clock.step(-5_000)).isEqualTo(-5_000);
        assertThat(clock.offsetMicros()).isEqualTo(5_000);
    }

    private RedisServerProcess start() {
        RedisServerProcess.Builder builder = RedisServerProcess.builder();
        clock.environment().forEach(builder::environment);
        return builder.start();
    }

    /** @return how far the server's clock is ahead of this JVM's, in ms */
    private static long aheadMillis(RedisServerProcess server) {
        List<?> time = (List<?>) server.call("TIME");
        long serverMillis = Long.parseLong(String.valueOf(time.get(0))) * 1000
                + Long.parseLong(String.valueOf(time.get(1))) / 1000;
        return serverMillis - System.currentTimeMillis();
    }
}
