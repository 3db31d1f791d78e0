package dev.distlock.etcd;

import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.spi.StoreEvents;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keys this store made and what it hears about them, turned into engine events:
 * <ul>
 * <li>a waiter's predecessor deleted → {@link StoreEvents#released} for that waiter, which tries at once (each
 * waiter watches only the key before it: a release wakes one waiter, not the herd);</li>
 * <li>a held key deleted (by an operator, or its lease ran out) → {@link StoreEvents#leaseLost};</li>
 * <li>a shared lease lost ({@link SessionLeases}) → every lease held on it is lost, and every waiter on it tries
 * again with a new key.</li>
 * </ul>
 * Watches start at the revision the store last read, so a deletion between that read and the watch is not missed;
 * they ask for a leader, so a member cut off from its cluster ends them rather than stays silent.
 */
final class KeyRegistry {

    private static final Logger log = LoggerFactory.getLogger(EtcdLockStore.class);

    private final Watch watches;

    private final ConcurrentHashMap<String, LockKey> byOwner = new ConcurrentHashMap<>();

    private volatile StoreEvents events = StoreEvents.NONE;

    KeyRegistry(Watch watches) {
        this.watches = watches;
    }

    void start(StoreEvents events) {
        this.events = events;
    }

    @Nullable LockKey byOwner(String ownerToken) {
        return byOwner.get(ownerToken);
    }

    int size() {
        return byOwner.size();
    }

    void register(LockKey key) {
        LockKey previous = byOwner.put(key.owner(), key);
        if (previous != null && previous != key) {
            stopWatching(previous);
        }
    }

    /** @return true when the key was tracked and is not any more (so only one caller acts on its end) */
    boolean forget(LockKey key) {
        if (!byOwner.remove(key.owner(), key)) {
            return false;
        }
        stopWatching(key);
        return true;
    }

    /**
     * Watches the key a waiter waits for, from the revision at which it was seen, for its deletion.
     *
     * @param key the waiter
     * @param predecessor the key it waits for
     * @param fromRevision the first revision to hear about
     */
    void watchPredecessor(LockKey key, ByteSequence predecessor, long fromRevision) {
        if (predecessor.equals(key.watched) && key.watcher != null) {
            return; // already watching it (an engine re-check)
        }
        watch(key, predecessor, fromRevision, () -> {
            if (byOwner.get(key.owner()) == key && !key.held) {
                stopWatching(key);
                events.released(key.request.name(), key.owner(), 0);
            }
        });
    }

    /** Watches a held key for its deletion: the lease is then lost. */
    void watchHeld(LockKey key) {
        watch(key, key.key, key.createRevision + 1, () -> {
            if (key.held && forget(key)) {
                log.warn("etcd key of lock '{}' was deleted while held (its lease ran out, or an operator)",
                        key.request.name());
                events.leaseLost(key.owner());
            }
        });
    }

    private void watch(LockKey key, ByteSequence watched, long fromRevision, Runnable deleted) {
        stopWatching(key);
        WatchOption option = WatchOption.builder().withRevision(fromRevision).withNoPut(true)
                .withRequireLeader(true).build();
        key.watched = watched;
        key.watcher = watches.watch(watched, option, Watch.listener((WatchResponse response) -> {
            for (WatchEvent event : response.getEvents()) {
                if (event.getEventType() == WatchEvent.EventType.DELETE) {
                    deleted.run();
                    return;
                }
            }
        }, error -> log.debug("Watch of a key of lock '{}' ended; the engine's re-check covers it",
                key.request.name(), error)));
    }

    void stopWatching(LockKey key) {
        Watch.Watcher watcher = key.watcher;
        key.watcher = null;
        key.watched = null;
        if (watcher != null) {
            watcher.close();
        }
    }

    /** A shared lease is gone: its holders lost their locks, its waiters queue again. */
    void sessionLost(SessionLease lease) {
        for (LockKey key : byOwner.values()) {
            if (key.session == lease && forget(key)) {
                if (key.held) {
                    log.warn("etcd lease lost: lease of lock '{}' lost", key.request.name());
                    events.leaseLost(key.owner());
                }
                else {
                    events.released(key.request.name(), key.owner(), 0);
                }
            }
        }
    }

    void clear() {
        byOwner.values().forEach(this::stopWatching);
        byOwner.clear();
        events = StoreEvents.NONE;
    }
}
