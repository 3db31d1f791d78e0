package dev.distlock.memory;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;

import dev.distlock.LockException;
import dev.distlock.LockInfo;
import dev.distlock.LockUnavailableException;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.StoreHealth;
import dev.distlock.spi.StoreTraits;
import dev.distlock.spi.Waiting;
import org.jspecify.annotations.Nullable;

/**
 * A {@link LockStore} in this JVM's memory, with the semantics of the real stores: owner-checked release and
 * renewal, leases that run out on the clock, shared read locks, and fencing tokens that increase per name. Several
 * {@link dev.distlock.core.StoreLockService}s on one instance stand for several application nodes: give each its
 * own {@link #connect() connection} (as distlock-test's {@code InMemoryLockService} does), so that a release
 * wakes the waiters of every node and closing one node leaves the others working.
 * <p>
 * Unlike the Redis store it keeps no queue of waiting nodes: across nodes, whichever asks first after a release
 * gets the lock ({@link dev.distlock.LockType#FAIR} order holds among the threads of one lock service). It keeps a
 * small entry per lock name it has seen, for as long as it lives.
 * <p>
 * For tests: {@link #makeUnavailable()} simulates an outage (every call fails closed) and {@link #forget(String)}
 * loses a holder's lease behind its back.
 */
public final class InMemoryLockStore implements LockStore {

    private final Map<String, Slot> slots = new ConcurrentHashMap<>();

    private final boolean clockTokens;

    /** A store whose fencing tokens count up from 1 per name. */
    public InMemoryLockStore() {
        this(false);
    }

    private InMemoryLockStore(boolean clockTokens) {
        this.clockTokens = clockTokens;
    }

    /**
     * A store whose fencing tokens are at least the clock in microseconds, as the Redis store's are
     * ({@link StoreTraits.TokenSource#CLOCK}): the engine then hands a held lock to the next thread of a JVM locally.
     *
     * @return a new store with clock-based tokens
     */
    public static InMemoryLockStore withClockTokens() {
        return new InMemoryLockStore(true);
    }

    /** Leases run out on the clock; permit holders are kept like readers, up to the name's permits. */
    @Override
    public StoreTraits traits() {
        return StoreTraits.of(StoreTraits.LeaseKind.EXPIRING,
                clockTokens ? StoreTraits.TokenSource.CLOCK : StoreTraits.TokenSource.COUNTER).withPermits();
    }

    private volatile boolean available = true;

    /** Every started node's notifications: a release anywhere wakes the waiters everywhere, as pub/sub does. */
    private final List<StoreEvents> subscribers = new CopyOnWriteArrayList<>();

    private Slot slot(String name) {
        return slots.computeIfAbsent(name, key -> new Slot());
    }

    /** @return the answer, or a failure during a simulated outage */
    private <T> CompletionStage<T> answer(Supplier<T> answer) {
        if (!available) {
            return CompletableFuture.failedFuture(new LockUnavailableException(
                    "The in-memory lock store is unavailable (simulated outage)"));
        }
        try {
            return CompletableFuture.completedFuture(answer.get());
        }
        catch (LockException ex) { // a request the store refuses, e.g. with other permits than the holders'
            return CompletableFuture.failedFuture(ex);
        }
    }

    /**
     * Subscribes a node to release notifications. Several lock services sharing this store should each use a
     * {@link #connect() connection} instead, which unsubscribes on close.
     */
    @Override
    public void start(StoreEvents events) {
        subscribers.add(events);
    }

    /**
     * A node's own connection to this store, for one of several lock services that share it: it is notified of
     * every release like the others, and closing it (when its lock service closes) ends its notifications only,
     * where closing the store itself would end every node's.
     *
     * @return a view of this store for one lock service
     */
    public LockStore connect() {
        return new Connection(this);
    }

    @Override
    public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
        return answer(() -> slot(request.name()).take(request, System.nanoTime(), clockTokens));
    }

    /**
     * Nobody is queued in memory (the engine's waiters wake on release notifications and re-checks): undoes only a
     * lock the request holds, i.e. one granted to an attempt whose answer the caller did not take.
     */
    @Override
    public CompletionStage<Void> cancel(LockRequest request) {
        return answer(() -> {
            free(request);
            return null;
        });
    }

    /** The name's slot as it is; a name never locked gets none (a look-up leaves nothing behind). */
    @Override
    public CompletionStage<Optional<LockInfo>> describe(String name) {
        Slot slot = slots.get(name);
        return answer(() -> slot == null ? Optional.empty() : slot.describe(name, System.nanoTime()));
    }

    @Override
    public CompletionStage<ReleaseResult> release(Lease lease) {
        return answer(() -> {
            // Tokens handed on locally since the grant: the next one from here is above them.
            Slot slot = slot(lease.request().name());
            synchronized (slot) {
                slot.lastToken = Math.max(slot.lastToken, lease.fencingToken());
            }
            return free(lease.request()) ? ReleaseResult.RELEASED : ReleaseResult.EXPIRED;
        });
    }

    @Override
    public CompletionStage<Boolean> forceRelease(String name) {
        return answer(() -> {
            Slot slot = slot(name);
            boolean held;
            synchronized (slot) {
                slot.expire(System.nanoTime());
                held = slot.owner != null || !slot.readers.isEmpty();
                slot.clear();
            }
            if (held) {
                subscribers.forEach(subscriber -> subscriber.released(name, null));
            }
            return held;
        });
    }

    /** @return whether the request held the lock, which is free of it now */
    private boolean free(LockRequest request) {
        Slot slot = slot(request.name());
        boolean released;
        synchronized (slot) {
            slot.expire(System.nanoTime());
            if (request.sharesName()) {
                released = slot.readers.remove(request.ownerToken()) != null;
                slot.expire(System.nanoTime()); // the last permit holder out ends the permits
            }
            else {
                released = request.ownerToken().equals(slot.owner);
                if (released) {
                    slot.owner = null;
                }
            }
        }
        if (released) {
            for (StoreEvents subscriber : subscribers) {
                subscriber.released(request.name(), null);
            }
        }
        return released;
    }

    @Override
    public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
        return answer(() -> extend(leases));
    }

    private List<RenewalResult> extend(List<? extends Lease> leases) {
        long now = System.nanoTime();
        List<RenewalResult> results = new ArrayList<>(leases.size());
        for (Lease lease : leases) {
            LockRequest request = lease.request();
            Slot slot = slot(request.name());
            synchronized (slot) {
                slot.expire(now);
                long end = now + request.leaseTime().toNanos();
                boolean held;
                if (request.sharesName()) {
                    Slot.Reader reader = slot.readers.get(request.ownerToken());
                    held = reader != null;
                    if (reader != null) {
                        reader.leaseEndNanos = end;
                    }
                }
                else {
                    held = request.ownerToken().equals(slot.owner);
                    if (held) {
                        slot.leaseEndNanos = end;
                    }
                }
                results.add(held ? RenewalResult.RENEWED : RenewalResult.LOST);
            }
        }
        return results;
    }

    @Override
    public CompletionStage<StoreHealth> health() {
        return CompletableFuture.completedFuture(new StoreHealth(available, Map.of("store", "in-memory")));
    }

    /** Ends the notifications of every node started on the store itself; locks and tokens stay. */
    @Override
    public void close() {
        subscribers.clear();
    }

    /** Every call fails with {@link LockUnavailableException} until {@link #makeAvailable()}. */
    public void makeUnavailable() {
        available = false;
    }

    /** Ends a simulated outage. */
    public void makeAvailable() {
        available = true;
    }

    /**
     * Loses the holders of a lock behind their backs, as data loss would; their watchdog reports the lease lost.
     *
     * @param name the lock name
     */
    public void forget(String name) {
        Slot slot = slot(name);
        synchronized (slot) {
            slot.clear();
        }
    }

    /**
     * @param name the lock name
     * @return whether someone holds the lock now
     */
    public boolean isLocked(String name) {
        Slot slot = slots.get(name);
        return slot != null && slot.describe(name, System.nanoTime()).isPresent();
    }

    /** One node's view of the store: its own subscription, removed when its lock service closes it. */
    private static final class Connection extends ForwardingLockStore {

        private final InMemoryLockStore store;

        private volatile @Nullable StoreEvents events;

        Connection(InMemoryLockStore store) {
            super(store);
            this.store = store;
        }

        @Override
        public void start(StoreEvents events) {
            this.events = events;
            store.subscribers.add(events);
        }

        @Override
        public void close() {
            StoreEvents started = events;
            if (started != null) {
                store.subscribers.remove(started);
            }
        }
    }
}
