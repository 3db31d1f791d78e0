package dev.distlock.metrics;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import dev.distlock.listener.AcquireEvent;
import dev.distlock.listener.AcquireResult;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.LongTaskTimer;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tag;
import io.micrometer.core.instrument.Timer;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatNoException;

/**
 * Unit tests of the mapping from engine events to the meters of docs/reference/meters.md, calling the
 * listener directly. The same meters are checked end to end against a real Redis in {@code MetricsRedisTests}.
 */
class MicrometerLockListenerTests {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();

    private final MicrometerLockListener listener = new MicrometerLockListener(registry);

    @Test
    void acquiredRecordsWaitTimeAndStartsHold() {
        TestHandle handle = new TestHandle("stock:42", 7);
        acquire("stock:42", AcquireResult.ACQUIRED, Duration.ofMillis(15), handle);

        Timer timer = registry.get("distlock.acquire").tags("lock", "stock", "result", "acquired").timer();
        assertThat(timer.count()).isEqualTo(1);
        assertThat(timer.totalTime(TimeUnit.MILLISECONDS)).isEqualTo(15.0);
        LongTaskTimer held = registry.get("distlock.held").tags("lock", "stock").longTaskTimer();
        assertThat(held.activeTasks()).isEqualTo(1);

        listener.released(handle, ReleaseResult.RELEASED);

        assertThat(held.activeTasks()).isZero();
        assertThat(counter("distlock.release", "lock", "stock", "result", "released")).isEqualTo(1);
        assertThat(listener.activeHolds()).isZero();
    }

    @Test
    void waitingCountsTheGroupsAcquisitionsInProgressWhateverTheirEnd() {
        LockListener.Acquisition first = listener.acquireStarted("stock:1");
        LockListener.Acquisition second = listener.acquireStarted("stock:2");
        LockListener.Acquisition other = listener.acquireStarted("report");
        Gauge waiting = registry.get("distlock.waiting").tags("lock", "stock").gauge();
        assertThat(waiting.value()).isEqualTo(2);
        assertThat(registry.get("distlock.waiting").tags("lock", "report").gauge().value()).isEqualTo(1);

        first.finished(AcquireEvent.timedOut("stock:1", 5));
        assertThat(waiting.value()).isEqualTo(1);
        second.finished(AcquireEvent.acquired("stock:2", 5, new TestHandle("stock:2", 1)));
        assertThat(waiting.value()).isZero();
        other.finished(AcquireEvent.failed("report", 5, new IllegalStateException("down")));
        assertThat(registry.get("distlock.waiting").tags("lock", "report").gauge().value()).isZero();
    }

    @Test
    void timeoutAndErrorAreTaggedAndStartNoHold() {
        acquire("stock:1", AcquireResult.TIMEOUT, Duration.ofMillis(50), null);
        acquire("stock:2", AcquireResult.ERROR, Duration.ofMillis(3), null);

        assertThat(registry.get("distlock.acquire").tags("lock", "stock", "result", "timeout").timer().count())
                .isEqualTo(1);
        assertThat(registry.get("distlock.acquire").tags("lock", "stock", "result", "error").timer().count())
                .isEqualTo(1);
        assertThat(registry.get("distlock.acquire").tags("lock", "stock", "result", "acquired").timer().count())
                .isZero();
        assertThat(registry.get("distlock.held").tags("lock", "stock").longTaskTimer().activeTasks()).isZero();
    }

    @Test
    void concurrentHoldsAreTrackedPerHandleNotByEquals() {
        TestHandle first = new TestHandle("job", 1);
        TestHandle second = new TestHandle("job", 2);
        acquire("job", AcquireResult.ACQUIRED, Duration.ZERO, first);
        acquire("job", AcquireResult.ACQUIRED, Duration.ZERO, second);
        LongTaskTimer held = registry.get("distlock.held").tags("lock", "job").longTaskTimer();
        assertThat(held.activeTasks()).isEqualTo(2);

        listener.released(first, ReleaseResult.RELEASED);

        assertThat(held.activeTasks()).isEqualTo(1);
    }

    @Test
    void leaseLostCountsAndEndsHoldAndLaterExpiredReleaseIsCounted() {
        TestHandle handle = new TestHandle("report:2024-01", 3);
        acquire("report:2024-01", AcquireResult.ACQUIRED, Duration.ZERO, handle);

        listener.leaseLost(handle);

        assertThat(counter("distlock.lease.lost", "lock", "report")).isEqualTo(1);
        assertThat(registry.get("distlock.held").tags("lock", "report").longTaskTimer().activeTasks()).isZero();

        listener.released(handle, ReleaseResult.EXPIRED);

        assertThat(counter("distlock.release", "lock", "report", "result", "expired")).isEqualTo(1);
        assertThat(listener.activeHolds()).isZero();
    }

    @Test
    void releaseErrorIsCounted() {
        TestHandle handle = new TestHandle("stock:9", 1);
        acquire("stock:9", AcquireResult.ACQUIRED, Duration.ZERO, handle);
        listener.released(handle, ReleaseResult.ERROR);
        assertThat(counter("distlock.release", "lock", "stock", "result", "error")).isEqualTo(1);
    }

    @Test
    void renewalsCountLeasesByResult() {
        listener.renewed(RenewalResult.RENEWED, 5);
        listener.renewed(RenewalResult.RENEWED, 2);
        listener.renewed(RenewalResult.LOST, 1);
        listener.renewed(RenewalResult.ERROR, 3);

        assertThat(counter("distlock.renewal", "result", "renewed")).isEqualTo(7);
        assertThat(counter("distlock.renewal", "result", "lost")).isEqualTo(1);
        assertThat(counter("distlock.renewal", "result", "error")).isEqualTo(3);
        assertThat(registry.get("distlock.renewal").counters()).allSatisfy(
                counter -> assertThat(counter.getId().getTags()).extracting(Tag::getKey).containsExactly("result"));
    }

    @Test
    void meterTypesAreThoseOfTheContract() {
        TestHandle handle = new TestHandle("stock:1", 1);
        acquire("stock:1", AcquireResult.ACQUIRED, Duration.ZERO, handle);
        listener.leaseLost(handle);
        listener.released(handle, ReleaseResult.EXPIRED);

        assertThat(type("distlock.acquire")).isEqualTo(Meter.Type.TIMER);
        assertThat(type("distlock.held")).isEqualTo(Meter.Type.LONG_TASK_TIMER);
        assertThat(type("distlock.release")).isEqualTo(Meter.Type.COUNTER);
        assertThat(type("distlock.lease.lost")).isEqualTo(Meter.Type.COUNTER);
        assertThat(type("distlock.renewal")).isEqualTo(Meter.Type.COUNTER);
        // No histogram is forced: percentiles are the user's choice through meter filters.
        Timer timer = registry.get("distlock.acquire").tags("result", "acquired").timer();
        assertThat(timer.takeSnapshot().histogramCounts()).isEmpty();
        assertThat(timer.takeSnapshot().percentileValues()).isEmpty();
    }

    @Test
    void tagValuesNeverContainTheKey() {
        String[] keys = { "42", "user-7f3a", "a:b:c", "" };
        for (String key : keys) {
            String name = "stock:" + key;
            TestHandle handle = new TestHandle(name, 1);
            acquire(name, AcquireResult.ACQUIRED, Duration.ZERO, handle);
            acquire(name, AcquireResult.TIMEOUT, Duration.ZERO, null);
            listener.leaseLost(handle);
            listener.released(handle, ReleaseResult.EXPIRED);
        }
        for (Meter meter : registry.getMeters()) {
            for (Tag tag : meter.getId().getTags()) {
                assertThat(tag.getValue()).as(meter.getId().toString()).doesNotContain(":", "42", "user-7f3a");
            }
            String lock = meter.getId().getTag("lock");
            if (lock != null) {
                assertThat(lock).isEqualTo("stock");
            }
        }
        // One series per group and result, whatever the number of keys.
        assertThat(registry.get("distlock.acquire").timers()).hasSize(AcquireResult.values().length);
    }

    @Test
    void lockGroupIsTheNameBeforeTheFirstColon() {
        assertThat(LockTags.lockGroup("stock:42")).isEqualTo("stock");
        assertThat(LockTags.lockGroup("OrderService.place")).isEqualTo("OrderService.place");
        assertThat(LockTags.lockGroup("a:b:c")).isEqualTo("a");
        assertThat(LockTags.lockGroup(":secret-key")).isEqualTo("unknown");
        assertThat(LockTags.lockGroup(null)).isEqualTo("unknown");
    }

    @Test
    void aFailingRegistryNeverThrowsIntoTheEngine() {
        MeterRegistry closed = new SimpleMeterRegistry();
        MicrometerLockListener failing = new MicrometerLockListener(closed) {
        };
        closed.config().meterFilter(new io.micrometer.core.instrument.config.MeterFilter() {
            @Override
            public Meter.Id map(Meter.Id id) {
                throw new IllegalStateException("broken registry");
            }
        });
        TestHandle handle = new TestHandle("x:1", 1);
        assertThatNoException().isThrownBy(() -> {
            failing.acquireStarted("x:1").finished(AcquireEvent.acquired("x:1", 1, handle));
            failing.leaseLost(handle);
            failing.released(handle, ReleaseResult.RELEASED);
            failing.renewed(RenewalResult.RENEWED, 1);
            failing.released(null, null);
        });
    }

    private void acquire(String name, AcquireResult result, Duration wait, TestHandle handle) {
        listener.acquireStarted(name).finished(switch (result) {
            case ACQUIRED -> AcquireEvent.acquired(name, wait.toNanos(), handle);
            case TIMEOUT -> AcquireEvent.timedOut(name, wait.toNanos());
            case ERROR -> AcquireEvent.failed(name, wait.toNanos(), new IllegalStateException("boom"));
        });
    }

    private double counter(String name, String... tags) {
        Counter counter = registry.get(name).tags(tags).counter();
        return counter.count();
    }

    private Meter.Type type(String name) {
        return registry.get(name).meters().iterator().next().getId().getType();
    }
}
