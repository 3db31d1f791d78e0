package dev.distlock.core;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.LockContext;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockInfo;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;
import dev.distlock.MultiLockHandle;
import dev.distlock.leader.Leadership;
import dev.distlock.leader.LeadershipListener;
import dev.distlock.listener.AcquireEvent;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.listener.LockListener.Acquisition;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.HandsOver;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.StoreHealth;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store-neutral {@link LockService}: everything that is the same whatever keeps the locks. Call-chain
 * reentrancy ({@link LockContext} scopes), local queues so that one thread per JVM and name competes in the store,
 * the wait loop ({@link StoreAcquirer}), one scheduler for the leases' timers ({@link LeaseScheduler}: renewals,
 * deadlines, expiries), listeners, the held-lock registry and the lifecycle. The {@link LockStore} answers attempts, releases and renewals.
 * <p>
 * Call {@link #start()} before use and {@link #close()} at the end ({@link #awaitIdle(Duration)} first for a
 * graceful shutdown).
 */
public class StoreLockService implements LockService, HeldLockRegistry, LockAdministration, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StoreLockService.class);

    private final LockStore store;

    private final StoreCalls calls;

    private final LeaseLifecycle lifecycle;

    private final LockConfig config;

    private final LockListener listener;

    private final LocalQueues queues = new LocalQueues();

    private final HeldLeases held = new HeldLeases();

    /** The leadership candidates of this instance that have not ended. */
    private final Set<Candidate> candidates = ConcurrentHashMap.newKeySet();

    private final StoreAcquirer acquirer;

    private final LeaseScheduler scheduler;

    private final LeaseEndings endings;

    private final LocalHandOff handOff;

    /** The longest wait (about 73 years): longer ones are taken as this, i.e. as waiting for good. */
    static final Duration MAX_WAIT = Duration.ofNanos(Long.MAX_VALUE / 4);

    private final ServiceShutdown shutdown;

    /**
     * @param store where the locks live
     * @param config the settings
     * @param listener the event callbacks (metrics, tracing); its exceptions are logged and ignored
     */
    public StoreLockService(LockStore store, LockConfig config, LockListener listener) {
        this.store = Objects.requireNonNull(store, "store");
        this.config = Objects.requireNonNull(config, "config");
        this.listener = listener instanceof CompositeLockListener ? listener
                : CompositeLockListener.of(List.of(listener));
        this.calls = new StoreCalls(store, config.commandTimeout());
        this.handOff = new LocalHandOff(calls.traits(), config.localHandOffMaxCount(), config.localHandOffMaxTime());
        // The scheduler reports losses to the endings, which stop its timers (it starts only in start()).
        this.scheduler = new LeaseScheduler(calls, config.leaseTime(), this.listener, this::leaseLost);
        this.endings = new LeaseEndings(calls, this.listener, held, scheduler, handOff);
        this.shutdown = new ServiceShutdown(store, held, queues, handOff, scheduler, endings);
        this.lifecycle = new ServiceLifecycle(store, queues, endings, shutdown);
        this.acquirer = new StoreAcquirer(lifecycle, calls, queues, handOff);
    }

    /** Starts the store's notifications and the watchdog. Works while the store is unreachable. */
    public void start() {
        StoreEventRouter router = new StoreEventRouter(queues, held, endings);
        if (store instanceof HandsOver handsOver) {
            handsOver.startHandOvers(router);
        }
        store.start(router);
        scheduler.start();
    }

    /** @return the settings */
    public LockConfig config() {
        return config;
    }

    @Override
    public Optional<Duration> defaultWaitTime() {
        return Optional.of(config.waitTime());
    }

    @Override
    public Optional<LockHandle> tryLock(String name, LockOptions options) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("Lock name must not be empty");
        }
        LockHandle reentered = ReentrantHandle.reenter(name, options.type(), lifecycle);
        if (reentered != null) {
            return Optional.of(reentered);
        }
        // Counted before the check, so that a shutdown either is seen here or waits for this acquisition to end.
        held.acquisitionStarted();
        try {
            if (!shutdown.accepting()) {
                throw shuttingDown(name);
            }
            return Optional.ofNullable(acquire(name, options));
        }
        finally {
            held.acquisitionEnded();
        }
    }

    @Override
    public Leadership campaign(String group, LeadershipListener listener) {
        if (group == null || group.isBlank()) {
            throw new IllegalArgumentException("Leadership group must not be blank");
        }
        Objects.requireNonNull(listener, "listener");
        if (!shutdown.accepting()) {
            throw shuttingDown(Candidate.lockName(group));
        }
        Candidate candidate = new Candidate(this, group, listener, this.listener, candidates::remove,
                config.commandTimeout().plus(config.commandTimeout()));
        candidates.add(candidate);
        candidate.start();
        return candidate;
    }

    /** @return the groups this instance leads now, sorted */
    @Override
    public List<String> leaderOf() {
        return candidates.stream().filter(Candidate::isLeader).map(Candidate::group).sorted().toList();
    }

    /** The wait time is for all the locks together: an unset one is the configured default, counted once. */
    @Override
    public Optional<MultiLockHandle> tryLockAll(Collection<String> names, LockOptions options) {
        boolean resolved = options.waitTime().isPresent() || (names != null && names.size() == 1); // as tryLock
        return LockService.super.tryLockAll(names, resolved ? options : options.withWaitTime(config.waitTime()));
    }

    private @Nullable LeaseHandle acquire(String name, LockOptions options) {
        // A watchdog lease is at least the hold-at-least time: the lock then stays held that long also when this
        // instance dies right after the unlock (a fixed lease is never shorter: LockOptions checks it).
        Duration lease = options.leaseTime().orElseGet(() -> max(config.leaseTime(), options.holdAtLeast()));
        if (options.permits() > 1 && !calls.traits().permits()) {
            throw new LockException("Lock '" + name + "' asks for " + options.permits() + " permits, but " + store
                    + " does not support permits");
        }
        LockRequest request = new LockRequest(name, options.type(), OwnerTokens.next(),
                atMostMaxWait(options.waitTime().orElse(config.waitTime())), lease, options.leaseTime().isEmpty(),
                options.permits(), config.instanceId());
        long start = System.nanoTime();
        Acquisition acquisition = listener.acquireStarted(name);
        LeaseHandle handle;
        try {
            handle = acquirer.acquire(request, start + request.waitTime().toNanos());
        }
        catch (RuntimeException ex) {
            acquisition.finished(AcquireEvent.failed(name, System.nanoTime() - start, ex));
            throw ex;
        }
        long waited = System.nanoTime() - start;
        if (handle == null) {
            acquisition.finished(AcquireEvent.timedOut(name, waited));
            log.debug("Lock '{}' not acquired within {} ms", name, request.waitTime().toMillis());
            return null;
        }
        handle.holdAtLeast(options.holdAtLeast());
        handle.onLeaseLost(options.onLeaseLost().orElse(config.onLeaseLost()));
        StoreLease granted = handle.lease();
        if (handle.fromStore()) { // a local hand-off passes on a lease that is registered and timed already
            held.add(granted);
            if (request.watchdog() && calls.traits().leasesExpire()) {
                scheduler.renew(granted);
            }
            else if (!request.watchdog()) {
                scheduler.expireAt(granted, endings::expired);
            }
            granted.whenUnconfirmed(() -> endings.lost(granted)); // a store hand-over the store did not confirm
        }
        acquisition.finished(AcquireEvent.acquired(name, waited, handle));
        log.debug("Lock '{}' acquired with fencing token {} after {} µs", name, handle.fencingToken(),
                waited / 1000);
        return handle;
    }

    private static Duration max(Duration a, Duration b) {
        return a.compareTo(b) >= 0 ? a : b;
    }

    /**
     * "Forever" may be written as a huge wait: one too long for nanoseconds would overflow the deadline (an
     * {@code ArithmeticException} after the listeners were told the acquisition started), so waits are capped at
     * {@link #MAX_WAIT}, which still differs from {@link System#nanoTime()} without overflow.
     */
    private static Duration atMostMaxWait(Duration wait) {
        return wait.compareTo(MAX_WAIT) > 0 ? MAX_WAIT : wait;
    }

    static LockUnavailableException shuttingDown(String name) {
        return new LockUnavailableException("The lock service is shutting down; lock '" + name + "' not taken");
    }

    private void leaseLost(StoreLease lease) {
        endings.lost(lease);
    }

    /** @return the number of lock names with local state; for tests */
    int localStateSize() {
        return queues.size();
    }

    @Override
    public List<HeldLockInfo> heldLocks() {
        return held.info();
    }

    @Override
    public boolean forceRelease(String name) {
        if (name == null || name.isEmpty()) {
            throw new IllegalArgumentException("Lock name must not be empty");
        }
        boolean released = calls.forceRelease(name);
        // This instance's own holders need not wait for a renewal to learn it (nor hand the lock on locally).
        held.snapshot().stream().filter(lease -> lease.name().equals(name)).forEach(endings::lost);
        return released;
    }

    /** Read from the store, bounded by {@code distlock.command-timeout}; the holder may be any instance. */
    @Override
    public Optional<LockInfo> describe(String name) {
        return calls.describe(name);
    }

    @Override
    public WatchdogStatus watchdogStatus() {
        return scheduler.status();
    }

    @Override
    public StoreHealth storeHealth(Duration timeout) {
        return calls.health(timeout);
    }

    /**
     * Stops taking new locks (new acquisitions fail with {@link LockUnavailableException}; reentrant ones still
     * work) and waits until every held lock was released, or the timeout passed. For a graceful shutdown: the
     * work running under locks finishes before {@link #shutdown(Duration)} or {@link #close()} releases what is left.
     *
     * @param timeout how long to wait at most
     * @return true when no lock is held any more
     */
    public boolean awaitIdle(Duration timeout) {
        return shutdown.awaitIdle(timeout);
    }

    /**
     * Graceful shutdown: {@link #awaitIdle(Duration) waits} up to the grace period for locked work to finish, then
     * stops the lease scheduler, releases every lock still held (logged at WARN) and closes the store. Idempotent.
     * Threads of this JVM still waiting for a lock fail with {@link LockUnavailableException}; none is handed a
     * lock that the shutdown would then leave in the store.
     *
     * @param grace how long running work may still take
     */
    public void shutdown(Duration grace) {
        shutdown.shutdown(grace, List.copyOf(candidates));
    }

    /** Releases every lock still held and closes the store: {@code shutdown(Duration.ZERO)}. */
    @Override
    public void close() {
        shutdown(Duration.ZERO);
    }
}
