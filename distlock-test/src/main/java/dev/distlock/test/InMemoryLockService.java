package dev.distlock.test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.LockHandle;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.AcquireEvent;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;

/**
 * A {@link dev.distlock.LockService} for unit and slice tests, without Redis: the real engine (scopes and
 * reentrancy, waiting and timeouts, the watchdog, lease expiry, listeners) on an {@link InMemoryLockStore}. Several
 * instances on one store stand for several application nodes. It records what it granted, for
 * {@link DistlockAssertions}.
 * <pre>{@code
 * try (InMemoryLockService locks = new InMemoryLockService()) {
 *     new StockService(locks).deduct(42, 1);
 *     assertThat(locks).hasBeenAcquired("stock:42").hasNoLockHeld();
 * }
 * }</pre>
 * As a bean, it replaces the auto-configured lock service, so {@code @DistributedLock} methods lock with it (and
 * Spring closes it with the context). Close instances made by hand: each runs a watchdog thread until closed.
 */
public class InMemoryLockService extends StoreLockService {

    /** Tests that expect a timeout should not wait the production default of 3 s for it. */
    private static final Duration TEST_WAIT_TIME = Duration.ofSeconds(1);

    private final InMemoryLockStore store;

    private final Recorder recorder;

    /** A lock service on a store of its own, with a 1 s default wait. */
    public InMemoryLockService() {
        this(new InMemoryLockStore());
    }

    /**
     * A further node on a shared store, with a 1 s default wait.
     *
     * @param store the store, possibly shared with other instances (nodes)
     */
    public InMemoryLockService(InMemoryLockStore store) {
        this(store, LockConfig.defaults().withWaitTime(TEST_WAIT_TIME));
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
        // A connection of its own: a release wakes every node's waiters, and closing this node leaves the others.
        super(store.connect(), config, CompositeLockListener.of(concat(recorder, listeners)));
        this.store = store;
        this.recorder = recorder;
        start();
    }

    private static List<LockListener> concat(LockListener first, LockListener[] rest) {
        List<LockListener> all = new ArrayList<>(rest.length + 1);
        all.add(first);
        all.addAll(List.of(rest));
        return all;
    }

    /** @return the store (to simulate an outage or a lost lease, or to share it with another node) */
    public InMemoryLockStore store() {
        return store;
    }

    /** @return every lock this service granted (not reentrant holds), in order */
    public List<Grant> grants() {
        return List.copyOf(recorder.grants);
    }

    /**
     * Forgets the grants recorded so far, e.g. between the tests that share one Spring context; locks held stay
     * held.
     */
    public void clearGrants() {
        recorder.grants.clear();
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

    /** Records grants; it exists before the engine, which takes its listeners when constructed. */
    private static final class Recorder implements LockListener {

        final List<Grant> grants = new CopyOnWriteArrayList<>();

        @Override
        public void acquireFinished(AcquireEvent event) {
            LockHandle handle = event.handle();
            if (handle != null) {
                grants.add(new Grant(event.name(), handle.fencingToken(), Thread.currentThread().getName(), handle));
            }
        }
    }
}
