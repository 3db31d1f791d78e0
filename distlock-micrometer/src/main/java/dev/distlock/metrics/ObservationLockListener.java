package dev.distlock.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.LockHandle;
import dev.distlock.listener.AcquireEvent;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.ReleaseResult;
import io.micrometer.observation.Observation;
import io.micrometer.observation.ObservationRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Reports acquisitions and holds as Micrometer {@link Observation observations}, so that a tracer shows one span
 * per acquisition ({@value #ACQUIRE_OBSERVATION}) and one per hold ({@value #HOLD_OBSERVATION}).
 * <p>
 * Low-cardinality key values are {@code lock} (the lock group, see {@link LockTags}) and {@code result}; the full
 * lock name ({@code distlock.lock.name}) and the fencing token ({@code distlock.fencing.token}) are
 * high-cardinality key values: they go on spans, never on metrics. The metrics of the contract are recorded by
 * {@link MicrometerLockListener}; Spring Boot's configuration denies the meters that the observation handler
 * would derive from these observations, so no duplicate series appear.
 * <p>
 * The acquisition observation starts on the caller's thread, so its parent is the caller's current observation
 * (an HTTP request, a scheduled task). The hold observation is not opened as a scope, because a handle may be
 * released from another thread than the one that acquired it.
 */
public class ObservationLockListener implements LockListener {

    /** Name of the acquisition observation. */
    public static final String ACQUIRE_OBSERVATION = "distlock.lock.acquire";

    /** Name of the hold observation. */
    public static final String HOLD_OBSERVATION = "distlock.lock.hold";

    /** Prefix shared by the observation names, for meter filters. */
    public static final String OBSERVATION_PREFIX = "distlock.lock.";

    /** High-cardinality key of the full lock name. */
    public static final String LOCK_NAME = "distlock.lock.name";

    /** High-cardinality key of the fencing token. */
    public static final String FENCING_TOKEN = "distlock.fencing.token";

    private static final Logger logger = LoggerFactory.getLogger(ObservationLockListener.class);

    private final ObservationRegistry registry;

    private final Map<HandleKey, Observation> holds = new ConcurrentHashMap<>();

    /**
     * @param registry where observations go
     */
    public ObservationLockListener(ObservationRegistry registry) {
        if (registry == null) {
            throw new IllegalArgumentException("ObservationLockListener: registry must not be null");
        }
        this.registry = registry;
    }

    @Override
    public Acquisition acquireStarted(String name) {
        Observation acquire;
        try {
            String group = LockTags.lockGroup(name);
            acquire = Observation.createNotStarted(ACQUIRE_OBSERVATION, registry)
                    .contextualName("distlock acquire " + group)
                    .lowCardinalityKeyValue(LockTags.LOCK, group)
                    .highCardinalityKeyValue(LOCK_NAME, String.valueOf(name))
                    .start();
        }
        catch (RuntimeException ex) {
            failed("acquireStarted", ex);
            return this::acquireFinished;
        }
        return event -> {
            try {
                acquire.lowCardinalityKeyValue(LockTags.RESULT, event.result().tag());
                Throwable error = event.error();
                if (error != null) {
                    acquire.error(error);
                }
                LockHandle handle = event.handle();
                if (handle != null) {
                    acquire.highCardinalityKeyValue(FENCING_TOKEN, Long.toString(handle.fencingToken()));
                }
                acquire.stop();
            }
            catch (RuntimeException ex) {
                failed("acquireFinished", ex);
            }
            acquireFinished(event);
        };
    }

    /** Starts the hold observation of an acquired lock. */
    @Override
    public void acquireFinished(AcquireEvent event) {
        LockHandle handle = event.handle();
        if (handle == null) {
            return;
        }
        try {
            String group = LockTags.lockGroup(event.name());
            Observation hold = Observation.createNotStarted(HOLD_OBSERVATION, registry)
                    .contextualName("distlock hold " + group)
                    .lowCardinalityKeyValue(LockTags.LOCK, group)
                    .highCardinalityKeyValue(LOCK_NAME, event.name())
                    .highCardinalityKeyValue(FENCING_TOKEN, Long.toString(handle.fencingToken()))
                    .start();
            Observation previous = holds.put(new HandleKey(handle), hold);
            if (previous != null) {
                previous.stop();
            }
        }
        catch (RuntimeException ex) {
            failed("acquireFinished", ex);
        }
    }

    @Override
    public void released(LockHandle handle, ReleaseResult result) {
        try {
            Observation hold = (handle != null) ? holds.remove(new HandleKey(handle)) : null;
            if (hold != null) {
                hold.lowCardinalityKeyValue(LockTags.RESULT, result.tag());
                hold.stop();
            }
        }
        catch (RuntimeException ex) {
            failed("released", ex);
        }
    }

    @Override
    public void expired(LockHandle handle) {
        try {
            Observation hold = holds.remove(new HandleKey(handle));
            if (hold != null) {
                hold.lowCardinalityKeyValue(LockTags.RESULT, "expired");
                hold.stop();
            }
        }
        catch (RuntimeException ex) {
            failed("expired", ex);
        }
    }

    @Override
    public void leaseLost(LockHandle handle) {
        try {
            Observation hold = (handle != null) ? holds.remove(new HandleKey(handle)) : null;
            if (hold != null) {
                hold.event(Observation.Event.of("distlock.lease.lost", "lease lost"));
                hold.lowCardinalityKeyValue(LockTags.RESULT, "lease-lost");
                hold.stop();
            }
        }
        catch (RuntimeException ex) {
            failed("leaseLost", ex);
        }
    }

    /** @return how many hold observations are open (for tests and diagnostics) */
    int openHolds() {
        return holds.size();
    }

    private void failed(String event, RuntimeException ex) {
        if (logger.isDebugEnabled()) {
            logger.debug("Could not report distlock observation for " + event, ex);
        }
    }
}
