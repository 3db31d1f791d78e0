package dev.distlock.metrics;

import java.util.EnumMap;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockHandle;
import dev.distlock.listener.AcquireEvent;
import dev.distlock.listener.AcquireResult;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Records the distlock meters from the engine's events:
 * <table>
 * <caption>Meters</caption>
 * <tr><th>meter</th><th>type</th><th>tags</th></tr>
 * <tr><td>{@code distlock.acquire}</td><td>Timer of the wait time</td><td>{@code lock}, {@code result} =
 * {@code acquired}/{@code timeout}/{@code error}</td></tr>
 * <tr><td>{@code distlock.held}</td><td>LongTaskTimer</td><td>{@code lock}</td></tr>
 * <tr><td>{@code distlock.release}</td><td>Counter</td><td>{@code lock}, {@code result} =
 * {@code released}/{@code expired}/{@code error}</td></tr>
 * <tr><td>{@code distlock.lease.lost}</td><td>Counter</td><td>{@code lock}</td></tr>
 * <tr><td>{@code distlock.renewal}</td><td>Counter</td><td>{@code result} =
 * {@code renewed}/{@code lost}/{@code error}</td></tr>
 * <tr><td>{@code distlock.leader}</td><td>Gauge: 1 while this instance leads the group, else 0</td><td>{@code group}
 * (one per leadership campaign; removed when the campaign ends)</td></tr>
 * <tr><td>{@code distlock.waiting}</td><td>Gauge: this instance's acquisitions of the group in progress (waiting for
 * the lock)</td><td>{@code lock}</td></tr>
 * </table>
 * The {@code lock} tag is the lock group ({@link LockTags#lockGroup}), never the evaluated key. No histogram is
 * forced: percentiles and SLO buckets come from the registry's meter filters (in Spring Boot,
 * {@code management.metrics.distribution.*}).
 * <p>
 * Thread-safe and non-blocking; meters are cached per lock group so the hot path does no registry look-up after
 * the first use of a group. A failure here is logged and swallowed: metrics never break locking.
 */
public class MicrometerLockListener implements LockListener {

    /** Name of the acquire timer. */
    public static final String ACQUIRE = "distlock.acquire";

    /** Name of the long task timer of held locks. */
    public static final String HELD = "distlock.held";

    /** Name of the release counter. */
    public static final String RELEASE = "distlock.release";

    /** Name of the lease-lost counter. */
    public static final String LEASE_LOST = "distlock.lease.lost";

    /** Name of the watchdog renewal counter. */
    public static final String RENEWAL = "distlock.renewal";

    /** Name of the leadership gauge. */
    public static final String LEADER = "distlock.leader";

    /** Name of the gauge of this instance's acquisitions in progress. */
    public static final String WAITING = "distlock.waiting";

    private static final Logger logger = LoggerFactory.getLogger(MicrometerLockListener.class);

    private final MeterRegistry registry;

    private final Map<String, GroupMeters> groups = new ConcurrentHashMap<>();

    private final Map<RenewalResult, Counter> renewals = new EnumMap<>(RenewalResult.class);

    /** Running hold samples, by handle identity (a handle's own equals is not part of the contract). */
    private final Map<HandleKey, LongTaskTimer.Sample> holds = new ConcurrentHashMap<>();

    /** Per leadership group: its gauge and the value it reads, 1 while leader, 0 while campaigning. */
    private final Map<String, LeaderGauge> leadership = new ConcurrentHashMap<>();

    /**
     * Creates the listener and registers the renewal counters, so that rates over them exist from the start.
     *
     * @param registry where to record
     */
    public MicrometerLockListener(MeterRegistry registry) {
        if (registry == null) {
            throw new IllegalArgumentException("MicrometerLockListener: registry must not be null");
        }
        this.registry = registry;
        for (RenewalResult result : RenewalResult.values()) {
            this.renewals.put(result, Counter.builder(RENEWAL)
                    .description("Watchdog lease renewals, by outcome")
                    .tag(LockTags.RESULT, result.tag())
                    .register(registry));
        }
    }

    /**
     * Counts the acquisition as waiting until it ends, then records it as {@link #acquireFinished} does, with the
     * group's meters looked up once for both.
     */
    @Override
    public Acquisition acquireStarted(String name) {
        GroupMeters meters;
        try {
            meters = meters(name);
            meters.waiting.incrementAndGet();
        }
        catch (RuntimeException ex) {
            failed("acquireStarted", ex);
            return this::acquireFinished;
        }
        return event -> {
            meters.waiting.decrementAndGet();
            record(meters, event);
        };
    }

    @Override
    public void acquireFinished(AcquireEvent event) {
        try {
            record(meters(event.name()), event);
        }
        catch (RuntimeException ex) {
            failed("acquireFinished", ex);
        }
    }

    private void record(GroupMeters meters, AcquireEvent event) {
        try {
            Objects.requireNonNull(meters.acquire.get(event.result())).record(Math.max(0, event.waitNanos()),
                    TimeUnit.NANOSECONDS);
            LockHandle handle = event.handle();
            if (handle != null) {
                LongTaskTimer.Sample previous = holds.put(new HandleKey(handle), meters.held.start());
                if (previous != null) {
                    // The same handle reported twice: keep one running sample, not a leaked one.
                    previous.stop();
                }
            }
        }
        catch (RuntimeException ex) {
            failed("acquireFinished", ex);
        }
    }

    @Override
    public void released(LockHandle handle, ReleaseResult result) {
        try {
            if (handle == null || result == null) {
                return;
            }
            stopHold(handle);
            Objects.requireNonNull(meters(handle.name()).release.get(result)).increment();
        }
        catch (RuntimeException ex) {
            failed("released", ex);
        }
    }

    @Override
    public void expired(LockHandle handle) {
        try {
            // A fixed lease that ran out is no longer held, whether or not it is unlocked later.
            stopHold(handle);
        }
        catch (RuntimeException ex) {
            failed("expired", ex);
        }
    }

    @Override
    public void leaseLost(LockHandle handle) {
        try {
            if (handle == null) {
                return;
            }
            // The lock is no longer held from the moment its lease is known lost, whatever the caller does next.
            stopHold(handle);
            meters(handle.name()).leaseLost.increment();
        }
        catch (RuntimeException ex) {
            failed("leaseLost", ex);
        }
    }

    @Override
    public void leadershipChanged(String group, boolean leader, boolean campaigning) {
        if (!campaigning) {
            LeaderGauge ended = leadership.remove(group);
            if (ended != null) {
                registry.remove(ended.gauge());
            }
            return;
        }
        leadership.computeIfAbsent(group, name -> {
            AtomicInteger state = new AtomicInteger();
            return new LeaderGauge(state, Gauge.builder(LEADER, state, AtomicInteger::get)
                    .description("1 while this instance leads the group, 0 while it campaigns").tag("group", name)
                    .register(registry));
        }).state().set(leader ? 1 : 0);
    }

    /** A leadership group's gauge and the value it reads. */
    private record LeaderGauge(AtomicInteger state, Gauge gauge) {
    }

    @Override
    public void renewed(RenewalResult result, int locks) {
        try {
            if (result != null && locks > 0) {
                Objects.requireNonNull(renewals.get(result)).increment(locks);
            }
        }
        catch (RuntimeException ex) {
            failed("renewed", ex);
        }
    }

    /** @return how many holds are being timed now (for tests and diagnostics) */
    int activeHolds() {
        return holds.size();
    }

    private void stopHold(LockHandle handle) {
        LongTaskTimer.Sample sample = holds.remove(new HandleKey(handle));
        if (sample != null) {
            sample.stop();
        }
    }

    private GroupMeters meters(String name) {
        return groups.computeIfAbsent(LockTags.lockGroup(name), group -> new GroupMeters(registry, group));
    }

    private void failed(String event, RuntimeException ex) {
        // Debug, not warn: a broken registry would otherwise flood the log on every lock call.
        if (logger.isDebugEnabled()) {
            logger.debug("Could not record distlock metrics for " + event, ex);
        }
    }

    /** The meters of one lock group, created once. */
    private static final class GroupMeters {

        final Map<AcquireResult, Timer> acquire = new EnumMap<>(AcquireResult.class);

        final Map<ReleaseResult, Counter> release = new EnumMap<>(ReleaseResult.class);

        final LongTaskTimer held;

        final Counter leaseLost;

        /** Read by the group's {@code distlock.waiting} gauge, which holds it only weakly: this keeps it. */
        final AtomicInteger waiting = new AtomicInteger();

        GroupMeters(MeterRegistry registry, String group) {
            for (AcquireResult result : AcquireResult.values()) {
                acquire.put(result, Timer.builder(ACQUIRE)
                        .description("Time spent waiting for a lock, by outcome")
                        .tag(LockTags.LOCK, group)
                        .tag(LockTags.RESULT, result.tag())
                        .register(registry));
            }
            for (ReleaseResult result : ReleaseResult.values()) {
                release.put(result, Counter.builder(RELEASE)
                        .description("Lock releases, by outcome")
                        .tag(LockTags.LOCK, group)
                        .tag(LockTags.RESULT, result.tag())
                        .register(registry));
            }
            held = LongTaskTimer.builder(HELD)
                    .description("Locks held by this instance and for how long")
                    .tag(LockTags.LOCK, group)
                    .register(registry);
            leaseLost = Counter.builder(LEASE_LOST)
                    .description("Leases found lost while the lock was held")
                    .tag(LockTags.LOCK, group)
                    .register(registry);
            Gauge.builder(WAITING, waiting, AtomicInteger::get)
                    .description("Acquisitions of this instance in progress (waiting for the lock)")
                    .tag(LockTags.LOCK, group)
                    .register(registry);
        }
    }
}
