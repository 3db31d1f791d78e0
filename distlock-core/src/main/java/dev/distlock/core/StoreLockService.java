package dev.distlock.core;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.LeaseLostException;
import dev.distlock.LockContext;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockType;
import dev.distlock.LockUnavailableException;
import dev.distlock.OnLeaseLost;
import dev.distlock.spi.AcquireResult;
import dev.distlock.spi.CompositeLockListener;
import dev.distlock.spi.HeldLockInfo;
import dev.distlock.spi.HeldLockRegistry;
import dev.distlock.spi.LockListener;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.StoreHealth;
import dev.distlock.spi.WatchdogStatus;
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
public class StoreLockService implements LockService, HeldLockRegistry, AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(StoreLockService.class);

    private final LockStore store;

    private final LockConfig config;

    private final LockListener listener;

    private final LocalQueues queues = new LocalQueues();

    private final Set<LeaseHandle> held = ConcurrentHashMap.newKeySet();

    private final StoreAcquirer acquirer;

    private final Watchdog watchdog;

    private final Object idle = new Object();

    private volatile boolean accepting = true;

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
        this.acquirer = new StoreAcquirer(this, store, queues);
        this.watchdog = new Watchdog(store, config.leaseTime(), this.listener, this::leaseLost);
    }

    /** Starts the store's notifications and the watchdog. Works while the store is unreachable. */
    public void start() {
        store.start(new StoreEvents() {
            @Override
            public void released(String name, @Nullable String handedTo, long reservedMillis) {
                queues.released(name, handedTo, reservedMillis);
            }

            @Override
            public void leaseLost(String ownerToken) {
                held.stream().filter(h -> h.request().ownerToken().equals(ownerToken)).findFirst()
                        .ifPresent(StoreLockService.this::leaseLost);
            }
        });
        watchdog.start();
    }

    /** @return the settings */
    public LockConfig config() {
        return config;
    }

    LockStore store() {
        return store;
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
        if (!accepting) {
            throw new LockUnavailableException("The lock service is shutting down; lock '" + name + "' not taken");
        }
        LockRequest request = new LockRequest(name, options.type(), OwnerTokens.next(),
                options.waitTime().orElse(config.waitTime()), options.leaseTime().orElse(config.leaseTime()),
                options.leaseTime().isEmpty());
        long start = System.nanoTime();
        Object context = listener.acquireStarted(name);
        LeaseHandle handle;
        try {
            handle = acquirer.acquire(request, start + request.waitTime().toNanos());
        }
        catch (RuntimeException ex) {
            listener.acquireFinished(name, context, AcquireResult.ERROR, System.nanoTime() - start, null, ex);
            throw ex;
        }
        long waited = System.nanoTime() - start;
        if (handle == null) {
            listener.acquireFinished(name, context, AcquireResult.TIMEOUT, waited, null, null);
            log.debug("Lock '{}' not acquired within {} ms", name, request.waitTime().toMillis());
            return Optional.empty();
        }
        held.add(handle);
        if (request.watchdog() && store.leasesExpire()) {
            watchdog.add(handle);
        }
        else if (!request.watchdog()) {
            watchdog.expireAt(handle, this::expired);
        }
        listener.acquireFinished(name, context, AcquireResult.ACQUIRED, waited, handle, null);
        log.debug("Lock '{}' acquired with fencing token {} after {} µs", name, handle.fencingToken(),
                waited / 1000);
        return Optional.of(handle);
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
        return (handle instanceof LeaseHandle h && h.service() == this)
                || (handle instanceof ReentrantHandle r && r.root().service() == this);
    }

    /** Releases the lock in the store; called once, when the last hold of the handle is released. */
    void release(LeaseHandle handle) {
        LeaseHandle.State previous = handle.markReleased();
        if (previous == LeaseHandle.State.RELEASED) {
            return;
        }
        watchdog.remove(handle);
        ReleaseResult result;
        try {
            result = store.release(handle);
        }
        catch (LockUnavailableException ex) {
            result = ReleaseResult.ERROR;
            log.warn("Release of lock '{}' (fencing token {}) not confirmed by the store; its lease will expire: {}",
                    handle.name(), handle.fencingToken(), ex.getMessage());
        }
        finally {
            handle.releaseLocal();
            forget(handle);
        }
        if (result == ReleaseResult.EXPIRED && previous != LeaseHandle.State.LOST) {
            log.warn("Lock '{}' (fencing token {}) was released after its lease had expired: another holder may "
                    + "have run concurrently; use a longer lease or the watchdog", handle.name(),
                    handle.fencingToken());
        }
        else {
            log.debug("Lock '{}' (fencing token {}) released: {}", handle.name(), handle.fencingToken(),
                    result.tag());
        }
        listener.released(handle, result);
        if (previous == LeaseHandle.State.LOST && config.onLeaseLost() == OnLeaseLost.THROW) {
            throw new LeaseLostException("The lease of lock '" + handle.name() + "' (fencing token "
                    + handle.fencingToken() + ") was lost while it was held; mutual exclusion was not guaranteed");
        }
    }

    /** The lease was found lost: the handle is no longer held and the next local waiter may go. */
    private void leaseLost(LeaseHandle handle) {
        if (handle.markLost()) {
            watchdog.remove(handle);
            handle.releaseLocal();
            forget(handle);
            log.warn("Lease of lock '{}' (fencing token {}) lost while held; another node may take it now",
                    handle.name(), handle.fencingToken());
            listener.leaseLost(handle);
        }
    }

    /**
     * A fixed lease ran out before unlock: free the local queue and tell the listeners (a lock taken "for at least
     * this long" is often never unlocked); an unlock later still reports the expiry.
     */
    private void expired(LeaseHandle handle) {
        if (handle.markExpired()) {
            handle.releaseLocal();
            forget(handle);
            listener.expired(handle);
            if (!store.leasesExpire()) {
                releaseQuietly(handle); // a session-bound lease does not end by itself
            }
        }
    }

    private void releaseQuietly(LeaseHandle handle) {
        try {
            store.release(handle);
        }
        catch (RuntimeException ex) {
            log.debug("Could not end the lease of lock '{}'", handle.name(), ex);
        }
    }

    private void forget(LeaseHandle handle) {
        if (held.remove(handle) && !accepting) {
            synchronized (idle) {
                idle.notifyAll();
            }
        }
    }

    void leaveLocal(LeaseHandle handle) {
        LocalQueues.Entry entry = handle.localEntry();
        if (!entry.shared()) {
            entry.permit.release();
        }
        queues.leave(entry);
    }

    /** @return the number of lock names with local state; for tests */
    int localStateSize() {
        return queues.size();
    }

    @Override
    public List<HeldLockInfo> heldLocks() {
        long now = System.nanoTime();
        List<HeldLockInfo> result = new ArrayList<>();
        for (LeaseHandle handle : held) {
            if (handle.isLockHeld()) {
                result.add(handle.info(now));
            }
        }
        result.sort(Comparator.comparing(HeldLockInfo::acquiredAt));
        return result;
    }

    @Override
    public WatchdogStatus watchdogStatus() {
        return watchdog.status();
    }

    @Override
    public StoreHealth storeHealth(Duration timeout) {
        return store.health(timeout);
    }

    /**
     * Stops taking new locks (new acquisitions fail with {@link LockUnavailableException}; reentrant ones still
     * work) and waits until every held lock was released, or the timeout passed. For a graceful shutdown: the
     * work running under locks finishes before {@link #close()} releases what is left.
     *
     * @param timeout how long to wait at most
     * @return true when no lock is held any more
     */
    public boolean awaitIdle(Duration timeout) {
        accepting = false;
        long deadline = System.nanoTime() + timeout.toNanos();
        synchronized (idle) {
            while (!held.isEmpty()) {
                long left = deadline - System.nanoTime();
                if (left <= 0) {
                    return false;
                }
                try {
                    idle.wait(Math.max(1, left / 1_000_000L));
                }
                catch (InterruptedException ex) {
                    Thread.currentThread().interrupt();
                    return held.isEmpty();
                }
            }
        }
        return true;
    }

    /** Stops the watchdog, releases every lock still held and closes the store. */
    @Override
    public void close() {
        accepting = false;
        watchdog.stop();
        List<LeaseHandle> left = List.copyOf(held);
        if (!left.isEmpty()) {
            log.warn("Releasing {} lock(s) still held at shutdown", left.size());
        }
        for (LeaseHandle handle : left) {
            try {
                release(handle);
            }
            catch (RuntimeException ex) {
                log.debug("Release at shutdown failed for lock '{}'", handle.name(), ex);
            }
        }
        store.close();
    }
}
