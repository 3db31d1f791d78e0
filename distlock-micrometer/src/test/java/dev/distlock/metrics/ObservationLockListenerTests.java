package dev.distlock.metrics;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.listener.AcquireEvent;
import dev.distlock.spi.ReleaseResult;
import io.micrometer.common.KeyValue;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationHandler;
import io.micrometer.observation.ObservationRegistry;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Unit tests of the observations (spans, when a tracer is present) reported for acquisitions and holds.
 */
class ObservationLockListenerTests {

    private final List<Observation.Context> stopped = new CopyOnWriteArrayList<>();

    private final ObservationRegistry registry = ObservationRegistry.create();

    private final ObservationLockListener listener = new ObservationLockListener(registry);

    ObservationLockListenerTests() {
        registry.observationConfig().observationHandler(new ObservationHandler<>() {
            @Override
            public boolean supportsContext(Observation.Context context) {
                return true;
            }

            @Override
            public void onStop(Observation.Context context) {
                stopped.add(context);
            }
        });
    }

    @Test
    void acquisitionAndHoldAreObservationsWithKeyOnlyInHighCardinality() {
        TestHandle handle = new TestHandle("stock:42", 17);
        listener.acquireStarted("stock:42").finished(AcquireEvent.acquired("stock:42", 1000, handle));

        assertThat(stopped).hasSize(1);
        Observation.Context acquire = stopped.get(0);
        assertThat(acquire.getName()).isEqualTo("distlock.lock.acquire");
        assertThat(acquire.getContextualName()).isEqualTo("distlock acquire stock");
        assertThat(acquire.getLowCardinalityKeyValues()).containsExactlyInAnyOrder(KeyValue.of("lock", "stock"),
                KeyValue.of("result", "acquired"));
        assertThat(acquire.getHighCardinalityKeyValue("distlock.lock.name").getValue()).isEqualTo("stock:42");
        assertThat(acquire.getHighCardinalityKeyValue("distlock.fencing.token").getValue()).isEqualTo("17");
        assertThat(listener.openHolds()).isEqualTo(1);

        listener.released(handle, ReleaseResult.RELEASED);

        assertThat(stopped).hasSize(2);
        Observation.Context hold = stopped.get(1);
        assertThat(hold.getName()).isEqualTo("distlock.lock.hold");
        assertThat(hold.getLowCardinalityKeyValues()).containsExactlyInAnyOrder(KeyValue.of("lock", "stock"),
                KeyValue.of("result", "released"));
        assertThat(hold.getHighCardinalityKeyValue("distlock.fencing.token").getValue()).isEqualTo("17");
        assertThat(listener.openHolds()).isZero();
    }

    @Test
    void failedAcquisitionCarriesTheErrorAndOpensNoHold() {
        IllegalStateException error = new IllegalStateException("redis down");
        listener.acquireStarted("stock:1").finished(AcquireEvent.failed("stock:1", 1000, error));

        assertThat(stopped).singleElement().satisfies(acquire -> {
            assertThat(acquire.getError()).isSameAs(error);
            assertThat(acquire.getLowCardinalityKeyValue("result").getValue()).isEqualTo("error");
        });
        assertThat(listener.openHolds()).isZero();
    }

    @Test
    void leaseLostEndsTheHold() {
        TestHandle handle = new TestHandle("job", 1);
        listener.acquireStarted("job").finished(AcquireEvent.acquired("job", 0, handle));
        listener.leaseLost(handle);
        listener.released(handle, ReleaseResult.EXPIRED);

        assertThat(stopped).hasSize(2);
        assertThat(stopped.get(1).getLowCardinalityKeyValue("result").getValue()).isEqualTo("lease-lost");
        assertThat(listener.openHolds()).isZero();
    }

    @Test
    void noopRegistryCostsNothingAndNeverFails() {
        ObservationLockListener noop = new ObservationLockListener(ObservationRegistry.NOOP);
        TestHandle handle = new TestHandle("job", 1);
        noop.acquireStarted("job").finished(AcquireEvent.acquired("job", 0, handle));
        noop.released(handle, ReleaseResult.RELEASED);
        noop.acquireStarted("job").finished(AcquireEvent.timedOut("job", 0));
        assertThat(noop.openHolds()).isZero();
    }
}
