package dev.distlock.test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.LockHandle;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.spi.AcquireResult;
import dev.distlock.spi.CompositeLockListener;
import dev.distlock.spi.LockListener;
import org.jspecify.annotations.Nullable;

/**
 * A {@link dev.distlock.LockService} for unit and slice tests, without Redis: the real engine (scopes and
 * reentrancy, waiting and timeouts, the watchdog, lease expiry, listeners) on an {@link InMemoryLockStore}. Several
 * instances on one store stand for several application nodes. It records what it granted, for
 * {@link DistlockAssertions}.
 * <pre>{@code
 * InMemoryLockService locks = new InMemoryLockService();
 * new StockService(locks).deduct(42, 1);
 * assertThat(locks).hasBeenAcquired("stock:42").hasNoLockHeld();
 * }</pre>
 * As a bean, it replaces the auto-configured lock service, so {@code @DistributedLock} methods lock with it.
 */
public class InMemoryLockService extends StoreLockService {

    private final InMemoryLockStore store;

    private final List<Grant> grants = new CopyOnWriteArrayList<>();

    /** A lock service on a store of its own, with a 1 s default wait (tests should not wait 3 s to fail). */
    public InMemoryLockService() {
        this(new InMemoryLockStore(), LockConfig.defaults().withWaitTime(Duration.ofSeconds(1)));
    }

    /**
     * @param store the store, possibly shared with other instances (nodes)
     * @param config the settings
     * @param listeners further listeners (metrics)
     */
    public InMemoryLockService(InMemoryLockStore store, LockConfig config, LockListener... listeners) {
        this(store, config, new Recorder(), listeners);
    }

    private InMemoryLockService(InMemoryLockStore store, LockConfig config, Recorder recorder,
            LockListener[] listeners) {
        super(store, config, CompositeLockListener.of(concat(recorder, listeners)));
        this.store = store;
        recorder.grants = grants;
        start();
    }

    private static List<LockListener> concat(LockListener first, LockListener[] rest) {
        List<LockListener> all = new java.util.ArrayList<>(List.of(rest));
        all.add(0, first);
        return all;
    }

    /** @return the store (to simulate an outage or a lost lease) */
    public InMemoryLockStore store() {
        return store;
    }

    /** @return every lock this service granted (not reentrant holds), in order */
    public List<Grant> grants() {
        return List.copyOf(grants);
    }

    /**
     * One grant of this service.
     *
     * @param name the lock name
     * @param fencingToken its token
     * @param thread the thread that acquired it
     * @param handle the handle, to see whether it is still held
     */
    public record Grant(String name, long fencingToken, String thread, LockHandle handle) {
    }

    /** Records grants (in a list set after construction: the listener must exist before the engine). */
    private static final class Recorder implements LockListener {

        @Nullable List<Grant> grants;

        @Override
        public void acquireFinished(String name, @Nullable Object context, AcquireResult result, long waitNanos,
                @Nullable LockHandle handle, @Nullable Throwable error) {
            List<Grant> to = grants;
            if (result == AcquireResult.ACQUIRED && handle != null && to != null) {
                to.add(new Grant(name, handle.fencingToken(), Thread.currentThread().getName(), handle));
            }
        }
    }
}
