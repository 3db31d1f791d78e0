package dev.distlock.memcached;

import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.stream.Collectors;

import dev.distlock.test.support.campaign.CampaignTopology;
import dev.distlock.test.support.campaign.ClockFaults;
import dev.distlock.test.support.campaign.FaultKind;

/**
 * What the nemesis does to the Memcached campaign nodes' wall clocks ({@link HolderClock}): a lock item holds its
 * lease's end by its writer's clock, and another node takes the name once its own clock is
 * {@link MemcachedLockStore#CLOCK_SKEW_MICROS} (1 s) past that end. An overlap therefore needs a reader's clock more
 * than 1 s ahead of the writer's (plus the engine's drift margin, 1 % + 2 ms of the lease, measured from before the
 * request was sent: 12 ms of the 1 s fixed leases, 22 ms of the 2 s leases).
 * <ul>
 * <li>Within the margin (the default): every node's clock stays within {@value #WITHIN_BAND_MICROS} µs of the
 * machine's, so any two readings (two nodes' at one moment, or a writer's then and a reader's later) are at most
 * 500 ms apart: half the store's 1 s, leaving the other half for what the clocks' files lag (a poll of
 * {@value OffsetFileClock#POLL_MILLIS} ms, more under load), without counting on the engine's drift margin. A
 * {@link FaultKind#CLOCK_STEP} moves one node's clock by 10 to 500 ms, forward or back; a
 * {@link FaultKind#CLOCK_DRIFT} runs it 1 to 20 % fast or slow for the fault's duration.</li>
 * <li>Beyond it ({@code -Dcampaign.clock=beyond}, {@link ClockFaults#beyondMargin()}): the band is
 * {@value #BEYOND_BAND_MICROS} µs (a node more than 3 s off Memcached's clock at its start would take its tokens
 * from the server's, {@link MemcachedServers}), steps of 1.2 to 3 s, drifts of 20 to 100 % (a slow one at 100 %
 * stands still), so two clocks can be up to 3 s apart: what the store's guarantee does not cover, and the run
 * reports the violations instead of failing.</li>
 * </ul>
 * Steps back are allowed in both modes: a token is {@code max(clock, last + 1)} (a fresh item's is the clock, but a
 * name's item lives 10 s past its lease, longer than any two clocks here are apart), and the history checks that
 * tokens still increase. A step goes the other way when the band leaves less than the smallest step on its side, a
 * drift when the band's edge is nearer than it would go and the other way has more room. A fault's heal leaves the
 * clock where it is, as a host's clock stays stepped: the band bounds the skew, and the next faults meet the
 * offsets the earlier ones left.
 */
final class HolderClockFaults {

    static final long WITHIN_BAND_MICROS = 250_000;

    static final long BEYOND_BAND_MICROS = 1_500_000;

    private HolderClockFaults() {
    }

    /** @return how far a node's clock may be off the machine's in this run's mode, in µs */
    static long bandMicros() {
        return ClockFaults.beyondMargin() ? BEYOND_BAND_MICROS : WITHIN_BAND_MICROS;
    }

    /**
     * Injects one clock fault on a node drawn at random: a step is done at once, a drift lasts until healed.
     *
     * @param kind {@link FaultKind#CLOCK_STEP} or {@link FaultKind#CLOCK_DRIFT}
     * @param clocks every node's clock, in a fixed order (the seed replays the choice)
     * @param random the nemesis' random source
     * @param duration how long a drift lasts
     * @return what was done, and its end
     */
    static CampaignTopology.Injected inject(FaultKind kind, List<HolderClock> clocks, Random random,
            Duration duration) {
        boolean beyond = ClockFaults.beyondMargin();
        String mode = beyond ? " (beyond the margin)" : "";
        HolderClock clock = clocks.get(random.nextInt(clocks.size()));
        switch (kind) {
            case CLOCK_STEP: {
                long smallest = beyond ? 1_200_000 : 10_000;
                long size = smallest + random.nextInt((int) (2 * clock.bandMicros() - smallest + 1));
                long sign = random.nextBoolean() ? 1 : -1;
                if (room(clock, sign) < smallest) {
                    sign = -sign;
                }
                long done = clock.step(sign * size);
                return new CampaignTopology.Injected(String.format(Locale.ROOT,
                        "step the clock of %s by %+.3f ms (asked %+.3f ms%s); clocks: %s", clock.node(),
                        done / 1000.0, sign * size / 1000.0, mode, offsets(clocks)), () -> { });
            }
            case CLOCK_DRIFT: {
                double rate = (random.nextBoolean() ? 1 : -1)
                        * (beyond ? 0.2 + random.nextInt(81) / 100.0 : (1 + random.nextInt(20)) / 100.0);
                if (room(clock, rate > 0 ? 1 : -1) < Math.abs(rate) * duration.toNanos() / 1000
                        && room(clock, rate > 0 ? -1 : 1) > room(clock, rate > 0 ? 1 : -1)) {
                    rate = -rate; // the band's edge is nearer than the drift would go: the other way has more room
                }
                clock.drift(rate);
                return new CampaignTopology.Injected(String.format(Locale.ROOT,
                        "drift the clock of %s %+.0f %%%s for %d ms; clocks: %s", clock.node(), rate * 100, mode,
                        duration.toMillis(), offsets(clocks)), clock::stopDrift);
            }
            default:
                throw new IllegalArgumentException("Not a clock fault: " + kind);
        }
    }

    /** @return how far the clock can go before the band's edge: forward when the sign is positive, else back */
    private static long room(HolderClock clock, long sign) {
        return sign > 0 ? clock.bandMicros() - clock.offsetMicros() : clock.bandMicros() + clock.offsetMicros();
    }

    private static String offsets(List<HolderClock> clocks) {
        return clocks.stream().map(clock -> String.format(Locale.ROOT, "%s %+.3f ms", clock.node(),
                clock.offsetMicros() / 1000.0)).collect(Collectors.joining(", "));
    }
}
