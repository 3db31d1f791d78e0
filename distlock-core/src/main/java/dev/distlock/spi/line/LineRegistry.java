package dev.distlock.spi.line;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Predicate;

import dev.distlock.spi.Lease;
import dev.distlock.spi.StoreEvents;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;

/**
 * The entries a line store made, by owner token and by where they live, and the waiters by what they watch: the
 * bookkeeping between the server's news and {@link StoreEvents}. A store's subclass hears the news (its watcher, its
 * session's state) and reports it through the methods here:
 * <ul>
 * <li>what a waiter watched is gone → {@link #wake} reports {@link StoreEvents#released} for each waiter on it, which
 * tries at once;</li>
 * <li>an entry is gone behind its request's back → {@link #gone}: a held one is lost
 * ({@link StoreEvents#leaseLost}), a waiter tries again with a new entry;</li>
 * <li>a session or lease ended → {@link #loseWhere} does that for every entry on it.</li>
 * </ul>
 * Thread-safe: news comes on the client's threads while attempts register and forget entries.
 *
 * @param <E> the store's entry
 * @param <W> how the store names where an entry lives and what a waiter watches (a path, a key)
 */
public abstract class LineRegistry<E extends LineEntry, W> {

    private final Logger log;

    private final ConcurrentHashMap<String, E> byOwner = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<W, E> byLocation = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<W, Set<E>> waitersOn = new ConcurrentHashMap<>();

    private final ConcurrentHashMap<E, W> watching = new ConcurrentHashMap<>();

    private volatile StoreEvents events = StoreEvents.NONE;

    /**
     * @param log where lost leases are logged: the store's logger
     */
    protected LineRegistry(Logger log) {
        this.log = log;
    }

    /**
     * @param entry an entry
     * @return where it lives
     */
    protected abstract W location(E entry);

    /** @param events where releases and lost leases are reported from now on */
    public void reportTo(StoreEvents events) {
        this.events = events;
    }

    /** @return where releases and lost leases are reported */
    protected final StoreEvents events() {
        return events;
    }

    /**
     * @param ownerToken a request's owner token
     * @return its entry, if this store tracks one
     */
    public final @Nullable E byOwner(String ownerToken) {
        return byOwner.get(ownerToken);
    }

    /**
     * @param location where an entry lives
     * @return the entry of this store that lives there, if any
     */
    public final @Nullable E at(W location) {
        return byLocation.get(location);
    }

    /**
     * @param lease a lease the store granted
     * @return its entry while it is held with the lease's token
     */
    public final @Nullable E held(Lease lease) {
        E entry = byOwner(lease.request().ownerToken());
        return entry != null && entry.held() && entry.fencingToken() == lease.fencingToken() ? entry : null;
    }

    /** @return how many entries are tracked */
    public final int size() {
        return byOwner.size();
    }

    /**
     * Tracks a new entry under its owner token and its location, in place of any earlier entry of the request.
     *
     * @param entry the entry, as soon as it exists (or may exist) on the server, so that a cancel finds it
     */
    public final void register(E entry) {
        E previous = byOwner.put(entry.owner(), entry);
        if (previous != null && previous != entry) {
            byLocation.remove(location(previous), previous);
            stopWaiting(previous);
        }
        byLocation.put(location(entry), entry);
    }

    /**
     * @param entry an entry
     * @return true when it was tracked and is not any more: only one caller acts on its end
     */
    public final boolean forget(E entry) {
        if (!byOwner.remove(entry.owner(), entry)) {
            return false;
        }
        byLocation.remove(location(entry), entry);
        stopWaiting(entry);
        return true;
    }

    /**
     * Registers a waiter on what it watches, before the watch is set, so that no news goes unheard.
     *
     * @param entry the waiter
     * @param watched what it watches
     */
    public final void waitOn(E entry, W watched) {
        stopWaiting(entry);
        watching.put(entry, watched);
        waitersOn.computeIfAbsent(watched, w -> ConcurrentHashMap.newKeySet()).add(entry);
    }

    /**
     * @param entry an entry
     * @return what it watches as a waiter, if anything
     */
    public final @Nullable W watching(E entry) {
        return watching.get(entry);
    }

    /** @param entry an entry that no longer waits for what it watched */
    public final void stopWaiting(E entry) {
        W watched = watching.remove(entry);
        if (watched != null) {
            waitersOn.computeIfPresent(watched, (w, waiters) -> waiters.remove(entry) && waiters.isEmpty()
                    ? null : waiters);
        }
    }

    /**
     * What waiters watched is gone or changed: each of them tries again now.
     *
     * @param watched what they watched
     */
    public final void wake(W watched) {
        Set<E> waiters = waitersOn.remove(watched);
        if (waiters != null) {
            for (E waiter : waiters) {
                watching.remove(waiter, watched);
                events.released(waiter.request().name(), waiter.owner());
            }
        }
    }

    /** Wakes every waiter of this store, e.g. after news may have been missed. */
    public final void wakeEveryWaiter() {
        byOwner.values().stream().filter(entry -> !entry.held())
                .forEach(entry -> events.released(entry.request().name(), entry.owner()));
    }

    /**
     * An entry of this store is gone on the server behind its request's back: a held one's lease is lost (once), a
     * waiter tries again with a new entry.
     *
     * @param entry the entry
     * @param why what happened, for the log (e.g. "ZooKeeper node of lock '{}' was deleted while held")
     */
    public final void gone(E entry, String why) {
        if (entry.held()) {
            if (forget(entry)) {
                log.warn(why, entry.request().name());
                events.leaseLost(entry.owner());
            }
        }
        else {
            events.released(entry.request().name(), entry.owner());
        }
    }

    /**
     * A session or lease ended, and the server deletes its entries: every held lease on it is lost, every waiter on
     * it tries again with a new entry.
     *
     * @param onIt which entries lived on it
     * @param why what happened, for the log (e.g. "ZooKeeper session lost")
     */
    public final void loseWhere(Predicate<? super E> onIt, String why) {
        for (E entry : byOwner.values()) {
            if (onIt.test(entry) && forget(entry)) {
                if (entry.held()) {
                    log.warn("{}: lease of lock '{}' lost", why, entry.request().name());
                    events.leaseLost(entry.owner());
                }
                else {
                    events.released(entry.request().name(), entry.owner());
                }
            }
        }
    }

    /** Forgets every entry and stops reporting: the store is closed. */
    public void clear() {
        byOwner.clear();
        byLocation.clear();
        waitersOn.clear();
        watching.clear();
        events = StoreEvents.NONE;
    }
}
