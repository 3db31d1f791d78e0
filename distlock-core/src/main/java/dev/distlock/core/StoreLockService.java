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
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockType;
import dev.distlock.LockUnavailableException;
import dev.distlock.MultiLockHandle;
import dev.distlock.leader.Leadership;
import dev.distlock.leader.LeadershipListener;
import dev.distlock.listener.AcquireEvent;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.listener.LockListener.Acquisition;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.StoreHealth;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The store-neutral {@link LockService}: everything that is the same whatever keeps the locks. Call-chain
 * reentrancy ({@link LockContext} scopes), local queues so that one thread per JVM and name competes in the store,
 * the wait loop ({@link StoreAcquirer}), one watchdog for all leases, listeners, the held-lock registry and the
 * lifecycle. The {@link LockStore} answers attempts, releases and renewals.
 * <p>
 * Call {@link #start()} before use and {@link #close()} at the end ({@link #awaitIdle(Duration)} first for a
 * graceful shutdown).
 */
public class StoreLockService implements LockService, HeldLockRegistry, LockAdministration, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StoreLockService.class);

    private final LockStore store;

    private final StoreCalls calls;

    private final LeaseLifecycle lifecycle = new Lifecycle();

    private final LockConfig config;

    private final LockListener listener;

    private final LocalQueues queues = new LocalQueues();

    private final HeldLeases held = new HeldLeases();

    /** The leadership campaigns of this instance that have not ended. */
    private final Set<Campaign> campaigns = ConcurrentHashMap.newKeySet();

    private final StoreAcquirer acquirer;

    private final Watchdog watchdog;

    private final LeaseEndings endings;

    private final LocalHandOff handOff;

    /** The longest wait (about 73 years): longer ones are taken as this, i.e. as waiting for good. */
    static final Duration MAX_WAIT = Duration.ofNanos(Long.MAX_VALUE / 4);

    /** How long the shutdown waits for acquisitions still in flight once it released every lock. */
    private static final Duration ACQUISITIONS_GRACE = Duration.ofSeconds(5);

    private volatile boolean accepting = true;

    private boolean closed;

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
        this.handOff = new LocalHandOff(store, config.localHandOffMaxCount(), config.localHandOffMaxTime());
        this.acquirer = new StoreAcquirer(lifecycle, calls, queues, handOff);
        this.endings = new LeaseEndings(calls, config.onLeaseLost(), this.listener, held, this::stopRenewing,
                handOff, this::releaseLater);
        this.watchdog = new Watchdog(calls, config.leaseTime(), this.listener, endings::leaseLost);
    }

    /** Starts the store's notifications and the watchdog. Works while the store is unreachable. */
    public void start() {
        store.start(new StoreEvents() {
            @Override
            public void released(String name, @Nullable String handedTo, long reservedMillis) {
                queues.released(name, handedTo, reservedMillis);
            }

            @Override
            public void handedOver(String name, String handedTo, long fencingToken, long reservedMillis) {
                queues.handedOver(name, handedTo, fencingToken, reservedMillis);
            }

            @Override
            public void leaseLost(String ownerToken) {
                held.byOwner(ownerToken).ifPresent(endings::leaseLost);
            }
        });
        watchdog.start();
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
        LockHandle reentered = reenter(name, options.type());
        if (reentered != null) {
            return Optional.of(reentered);
        }
        // Counted before the check, so that a shutdown either is seen here or waits for this acquisition to end.
        held.acquisitionStarted();
        try {
            if (!accepting) {
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
        if (!accepting) {
            throw shuttingDown(Campaign.lockName(group));
        }
        Campaign campaign = new Campaign(this, group, listener, this.listener, campaigns::remove,
                config.commandTimeout().plus(config.commandTimeout()));
        campaigns.add(campaign);
        campaign.start();
        return campaign;
    }

    /** @return the groups this instance leads now, sorted */
    @Override
    public List<String> leaderOf() {
        return campaigns.stream().filter(Campaign::isLeader).map(Campaign::group).sorted().toList();
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
        if (options.permits() > 1 && !store.supportsPermits()) {
            throw new LockException("Lock '" + name + "' asks for " + options.permits() + " permits, but " + store
                    + " does not support permits");
        }
        LockRequest request = new LockRequest(name, options.type(), OwnerTokens.next(),
                atMostMaxWait(options.waitTime().orElse(config.waitTime())), lease, options.leaseTime().isEmpty(),
                options.permits());
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
        held.add(handle);
        if (request.watchdog() && store.leasesExpire()) {
            watchdog.add(handle);
        }
        else if (!request.watchdog()) {
            watchdog.expireAt(handle, endings::expired);
        }
        handle.whenUnconfirmed(() -> endings.leaseLost(handle)); // a hand-over the store did not confirm
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

    /** @return a reentrant hold when this call chain holds the name in a scope, else {@code null} */
    private @Nullable LockHandle reenter(String name, LockType type) {
        Optional<LockHandle> scope = LockContext.held(name, this::issued);
        if (scope.isEmpty()) {
            return null;
        }
        LeaseHandle root = scope.get() instanceof ReentrantHandle r ? r.root() : (LeaseHandle) scope.get();
        if (root.request().shared() && type != LockType.READ) {
            // Two readers upgrading at once would wait for each other forever.
            throw new LockException("Lock '" + name + "' is held for READ by this call chain and cannot be "
                    + "upgraded to an exclusive lock; release the read lock first");
        }
        // Null when the lease can no longer be counted on: the caller then waits like anyone else.
        return root.tryEnter();
    }

    private boolean issued(LockHandle handle) {
        return (handle instanceof LeaseHandle h && h.issuer() == lifecycle)
                || (handle instanceof ReentrantHandle r && r.root().issuer() == lifecycle);
    }

    private void stopRenewing(LeaseHandle handle) {
        watchdog.remove(handle);
    }

    /** Releases the lock when its hold-at-least time is over, on the watchdog's scheduler. */
    private void releaseLater(LeaseHandle handle, long delayNanos) {
        watchdog.releaseLater(handle, delayNanos, this::release);
    }

    /** Releases the lock in the store (or to the next local thread); once, at the last hold's release. */
    private void release(LeaseHandle handle) {
        endings.release(handle);
    }

    /** The steps of a lease's life that its handle and the wait loop ask of this service. */
    private final class Lifecycle implements LeaseLifecycle {

        @Override
        public boolean accepting() {
            return accepting;
        }

        @Override
        public boolean storeMayHold(LeaseHandle handle) {
            return store.isHeld(handle);
        }

        @Override
        public void lastHoldReleased(LeaseHandle handle) {
            release(handle);
        }

        @Override
        public void localHoldEnded(LeaseHandle handle) {
            LocalQueues.Entry entry = handle.localEntry();
            if (!entry.shared()) {
                entry.passTurn();
            }
            leftQueue(entry);
        }

        /** The last one out releases a lease that was left for a local waiter. */
        @Override
        public void leftQueue(LocalQueues.Entry entry) {
            LeaseHandle left = queues.leave(entry);
            if (left != null) {
                returnToStore(left);
            }
        }

        @Override
        public void returnToStore(LeaseHandle left) {
            endings.releaseToStore(left);
        }
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
        held.snapshot().stream().filter(handle -> handle.name().equals(name)).forEach(endings::leaseLost);
        return released;
    }

    @Override
    public WatchdogStatus watchdogStatus() {
        return watchdog.status();
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
        accepting = false;
        // A lease handed to a queued thread now might be taken after the last release of the shutdown: none any more.
        handOff.stop();
        // Threads waiting in the store give up now; those queued behind them follow one by one.
        queues.wakeAll();
        return held.awaitEmpty(timeout);
    }

    /**
     * Graceful shutdown: {@link #awaitIdle(Duration) waits} up to the grace period for locked work to finish, then
     * stops the watchdog, releases every lock still held (logged at WARN) and closes the store. Idempotent.
     * Threads of this JVM still waiting for a lock fail with {@link LockUnavailableException}; none is handed a
     * lock that the shutdown would then leave in the store.
     *
     * @param grace how long running work may still take
     */
    public void shutdown(Duration grace) {
        // Leaders are told first and release their leases while the store still answers; no campaign starts again.
        accepting = false;
        List.copyOf(campaigns).forEach(Campaign::close);
        if (!awaitIdle(grace)) {
            log.warn("Locked work still running after {} ms of shutdown: releasing its locks", grace.toMillis());
        }
        synchronized (this) {
            if (closed) {
                return;
            }
            closed = true;
        }
        watchdog.stop();
        releaseHeld();
        // Releasing frees the threads queued behind those locks, which fail; an attempt already sent to the store
        // ends within its command timeout. A lease granted meanwhile is released here, before the store closes.
        if (!held.awaitEmpty(ACQUISITIONS_GRACE)) {
            releaseHeld();
        }
        store.close();
    }

    private void releaseHeld() {
        for (LeaseHandle handle : held.snapshot()) {
            try {
                release(handle);
            }
            catch (RuntimeException ex) {
                log.debug("Release at shutdown failed for lock '{}'", handle.name(), ex);
            }
        }
    }

    /** Stops the watchdog, releases every lock still held and closes the store: {@code shutdown(Duration.ZERO)}. */
    @Override
    public void close() {
        shutdown(Duration.ZERO);
    }
}
