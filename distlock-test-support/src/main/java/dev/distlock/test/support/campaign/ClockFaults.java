package dev.distlock.test.support.campaign;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.Random;

/**
 * What the nemesis does to a store process's {@link FakedClock}: {@link FaultKind#CLOCK_STEP} and
 * {@link FaultKind#CLOCK_DRIFT}, in one of two modes.
 * <ul>
 * <li>Within the drift margin (the default): the store's clock runs {@value #BASE_RATE_PERCENT} % fast for the
 * whole run, faster (up to 0.9 %) during a drift fault, steps forward by 5 to 10 ms, and gains at most
 * {@value #GAIN_LIMIT_MICROS} µs on the holders' clock in any second, steps and drift together. The engine counts on
 * a lease for its length less 1 % + 2 ms (52 ms of the {@value #FIXED_LEASE_MILLIS} ms fixed leases the campaign's
 * holds take on such a store, {@link #fixedLeaseMillis}; 22 ms of its 2 s leases), measured from before the request
 * was sent, so no holder counts on a lease the store has ended: the history must show no violation. The fixed
 * leases are that long so that the clock's constant gain over one (25 ms) is wider than the 10 ms between a
 * holder's looks at {@code isHeld()} and the few ms the next holder takes to be granted: a build whose holders
 * count on a lease to its end (no drift margin) shows an overlap within CI's short run. The clock never steps back: a
 * fencing token taken from the store's clock ({@code max(last + 1, clock)} on Redis, PostgreSQL and MariaDB) for a name
 * nobody holds is only as increasing as the clock, and two grants of a name in the campaign are often less than a
 * millisecond apart. A store of several processes (Redlock's masters, the data servers of Sentinel and of Cluster) has
 * one clock per process ({@link #prepareEach}) and a fault moves one of them ({@link #injectOne}): their clocks drift
 * apart by what the faults add up to, a drift fault leaving its process up to 24 ms behind the others (0.1 % instead of
 * 0.9 % for 3 s), a step putting it 1 to 6 ms ahead; tokens issued by another process's clock (after a failover, or by
 * another Redlock majority) are only as increasing as the clocks agree.</li>
 * <li>Beyond it ({@code -Dcampaign.clock=beyond}, never in CI): drifts of 2 to 10 % fast, steps of 20 ms to 1.5 s
 * forward and of 1 ms to 1.5 s back, with no limit. What the guarantees do not cover: the run reports the
 * violations it measured instead of failing.</li>
 * </ul>
 */
public final class ClockFaults {

    /** The system property choosing the mode: {@code beyond} for faults beyond the drift margin. */
    public static final String MODE_PROPERTY = "campaign.clock";

    /** The most the store's clock gains in any second within the margin: 10 ms, under a 1 s lease's 12 ms. */
    public static final long GAIN_LIMIT_MICROS = 10_000;

    /** How fast the store's clock runs for the whole run, in percent. */
    public static final String BASE_RATE_PERCENT = "0.9";

    /** The fixed lease of the campaign's holds on a store with a faked clock. */
    public static final long FIXED_LEASE_MILLIS = 5000;

    private ClockFaults() {
    }

    /** @return the clock faults of a store process with this clock, none without libfaketime */
    public static List<FaultKind> kinds(Optional<FakedClock> clock) {
        return clock.isPresent() ? List.of(FaultKind.CLOCK_STEP, FaultKind.CLOCK_DRIFT) : List.of();
    }

    /** @return the clock faults of a store whose processes have these clocks, none without libfaketime */
    public static List<FaultKind> kinds(List<FakedClock> clocks) {
        return kinds(clocks.stream().findFirst());
    }

    /**
     * Clocks for the processes of a store that runs several of one program (Redlock's masters, a Sentinel
     * deployment's data servers, a Cluster's nodes), one clock each, each {@link #prepare prepared}: its base rate
     * runs from now, so that clocks prepared together stay within a millisecond of each other until a fault moves
     * one of them. The program is tried under the library once, for the first process.
     *
     * @param program the program every process runs
     * @param processes the processes, as messages name them, e.g. "redlock master 0"
     * @return one clock per process, in that order; none (after one WARN saying why) without libfaketime or when
     *         the program does not run under it
     */
    public static List<FakedClock> prepareEach(Path program, List<String> processes) {
        Optional<FakedClock> first = FakedClock.create(processes.get(0), program);
        if (first.isEmpty()) {
            return List.of();
        }
        List<FakedClock> clocks = new ArrayList<>(List.of(first.get()));
        for (String process : processes.subList(1, processes.size())) {
            clocks.add(FakedClock.create(process).orElseThrow());
        }
        clocks.forEach(ClockFaults::prepare);
        return List.copyOf(clocks);
    }

    /** @return true when {@code -Dcampaign.clock=beyond} asks for faults beyond the drift margin */
    public static boolean beyondMargin() {
        return "beyond".equals(System.getProperty(MODE_PROPERTY, "").trim().toLowerCase(Locale.ROOT));
    }

    /**
     * @param clock a store process's clock, started with its {@link FakedClock#environment()}
     * @return the clock, limited to what the margin covers unless {@link #beyondMargin()}
     */
    public static FakedClock prepare(FakedClock clock) {
        if (!beyondMargin()) {
            clock.limitGain(GAIN_LIMIT_MICROS);
        }
        clock.baseDrift(Double.parseDouble(BASE_RATE_PERCENT) / 100);
        return clock;
    }

    /**
     * @param clock a store process's clock, if it has one
     * @return the fixed lease of the campaign's holds on that store: {@value #FIXED_LEASE_MILLIS} ms with a faked
     *         clock, else {@link CampaignTopology#FIXED_LEASE_MILLIS}
     */
    public static long fixedLeaseMillis(Optional<FakedClock> clock) {
        return fixedLeaseMillis(clock.isPresent());
    }

    /**
     * @param faked whether the store's clock is faked (by a {@link FakedClock} or a {@link RateClock})
     * @return the fixed lease of the campaign's holds on that store, as {@link #fixedLeaseMillis(Optional)}
     */
    public static long fixedLeaseMillis(boolean faked) {
        return faked ? FIXED_LEASE_MILLIS : CampaignTopology.FIXED_LEASE_MILLIS;
    }

    /**
     * @param clocks the clocks of a store's processes, if they have them
     * @return the fixed lease of the campaign's holds on that store, as {@link #fixedLeaseMillis(Optional)}
     */
    public static long fixedLeaseMillis(List<FakedClock> clocks) {
        return fixedLeaseMillis(clocks.stream().findFirst());
    }

    /**
     * Injects one clock fault into one of a store's processes, drawn at random: the others' clocks go on as they
     * were, so the processes' clocks drift apart by what the faults add up to.
     *
     * @param kind {@link FaultKind#CLOCK_STEP} or {@link FaultKind#CLOCK_DRIFT}
     * @param clocks the clocks of the store's processes, at least one
     * @param random the nemesis' random source
     * @param duration how long a drift lasts
     * @return what was done, and its end
     */
    public static CampaignTopology.Injected injectOne(FaultKind kind, List<FakedClock> clocks, Random random,
            Duration duration) {
        return inject(kind, clocks.get(random.nextInt(clocks.size())), random, duration);
    }

    /**
     * Injects one clock fault; a step is done at once (healing leaves the clock where it is, as a host's clock
     * after a step is), a drift lasts until healed.
     *
     * @param kind {@link FaultKind#CLOCK_STEP} or {@link FaultKind#CLOCK_DRIFT}
     * @param clock the store process's clock
     * @param random the nemesis' random source
     * @param duration how long a drift lasts
     * @return what was done, and its end
     */
    public static CampaignTopology.Injected inject(FaultKind kind, FakedClock clock, Random random,
            Duration duration) {
        boolean beyond = beyondMargin();
        String mode = beyond ? " (beyond the margin)" : "";
        switch (kind) {
            case CLOCK_STEP: {
                long asked = beyond
                        ? (random.nextBoolean() ? 1 : -1) * (1_000 + random.nextInt(1_499_000))
                        : 5_000 + random.nextInt(5_001);
                if (beyond && asked > 0 && asked < 20_000) {
                    asked += 20_000;
                }
                long done = clock.step(asked);
                return new CampaignTopology.Injected(String.format(Locale.ROOT,
                        "step the clock of %s by %+.3f ms (asked %+.3f ms%s), now %+.3f ms off", clock.process(),
                        done / 1000.0, asked / 1000.0, mode, clock.offsetMicros() / 1000.0), () -> { });
            }
            case CLOCK_DRIFT: {
                double rate = beyond ? 0.02 + random.nextInt(81) / 1000.0 : (1 + random.nextInt(9)) / 1000.0;
                clock.drift(rate);
                return new CampaignTopology.Injected(String.format(Locale.ROOT,
                        "drift the clock of %s %.1f %% fast%s, from %+.3f ms off", clock.process(), rate * 100,
                        mode, clock.offsetMicros() / 1000.0), clock::stopDrift);
            }
            default:
                throw new IllegalArgumentException("Not a clock fault: " + kind);
        }
    }
}
