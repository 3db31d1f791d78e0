package dev.distlock.etcd;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.line.LineRegistry;
import io.etcd.jetcd.ByteSequence;
import io.etcd.jetcd.Watch;
import io.etcd.jetcd.common.exception.CompactedException;
import io.etcd.jetcd.options.WatchOption;
import io.etcd.jetcd.watch.WatchEvent;
import io.etcd.jetcd.watch.WatchResponse;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The keys this store made ({@link LineRegistry}, by key) and what it hears about them, turned into engine events:
 * <ul>
 * <li>a waiter's predecessor deleted → {@link StoreEvents#released} for that waiter alone, which tries at once (a
 * waiter of a lock waits for one key: a release wakes one waiter, not the herd);</li>
 * <li>any key of a name deleted → {@link StoreEvents#released} for every waiter of this instance that waits for the
 * name as a whole, which is how a waiter for one of several permits waits: any of the keys ahead of it leaving may
 * bring it among the first holders, and which one leaves first is not known, so it cannot wait for one key. Each
 * such waiter reads again (one small transaction); keys leaving behind it wake it for nothing, the price of
 * learning every deletion from the one watch;</li>
 * <li>a held key deleted (by an operator, or its lease ran out) → {@link StoreEvents#leaseLost};</li>
 * <li>a shared lease lost ({@link SessionLeases}) → every lease held on it is lost, and every waiter on it tries
 * again with a new key.</li>
 * </ul>
 * It hears of deletions through <em>one</em> watch per store, on every key under the key prefix, deletions only.
 * Not one watch per waiter and holder: jetcd opens a gRPC stream per watch and does not end it on the server when
 * the watch is closed (jetcd #1510), so a watch per lock would leak a server stream per acquisition; and a watch
 * that starts at a revision etcd has already passed — the normal case on a busy lock — is only caught up by etcd's
 * background loop, every 100 ms. The one watch stays caught up, so a release reaches the next waiter within a
 * round trip. The price: every instance hears every deletion under the prefix (a small event each).
 * <p>
 * A deletion that happens between a waiter's read and its registration here is not lost: the latest deletions are
 * remembered ({@link #RECENT_DELETIONS}), and a waiter whose read is older than the watch itself is woken at once
 * to read again.
 */
final class KeyRegistry extends LineRegistry<LockKey, ByteSequence> {

    private static final Logger log = LoggerFactory.getLogger(EtcdLockStore.class);

    /** How many of the latest deletions are remembered for waiters that register after them. */
    static final int RECENT_DELETIONS = 4096;

    /** After the watch ended for good (no leader, compaction), it is opened again after this long. */
    private static final long REOPEN_MILLIS = 500;

    private final Watch watches;

    private final EtcdKeys keys;

    private final ScheduledExecutorService scheduler;

    /**
     * Key or lock prefix → revision of its (latest) deletion, the latest {@link #RECENT_DELETIONS}; guarded by
     * itself. A lock prefix stands for any key of its name, for the waiters of a name as a whole.
     */
    private final Map<ByteSequence, Long> recentDeletions = new LinkedHashMap<>(256, 0.75f, false) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<ByteSequence, Long> eldest) {
            return size() > RECENT_DELETIONS;
        }
    };

    private volatile Watch.@Nullable Watcher watcher;

    /** The revision from which the watch is known to report every deletion; 0 until it is created. */
    private volatile long watchingFrom;

    /** The last revision the watch reported. */
    private volatile long lastRevision;

    private volatile boolean closed;

    KeyRegistry(Watch watches, EtcdKeys keys, ScheduledExecutorService scheduler) {
        super(log);
        this.watches = watches;
        this.keys = keys;
        this.scheduler = scheduler;
    }

    /** Starts reporting to the engine and opens the watch. */
    void start(StoreEvents events) {
        reportTo(events);
        open(0);
    }

    @Override
    protected ByteSequence location(LockKey key) {
        return key.key;
    }

    private void open(long fromRevision) {
        if (closed) {
            return;
        }
        WatchOption option = WatchOption.builder().isPrefix(true).withNoPut(true).withCreateNotify(true)
                .withRequireLeader(true).withRevision(fromRevision).build();
        watcher = watches.watch(keys.storePrefix(), option, Watch.listener(this::onResponse, this::onError));
    }

    private void onResponse(WatchResponse response) {
        if (response.isCreatedNotify()) {
            long revision = response.getHeader().getRevision();
            lastRevision = Math.max(lastRevision, revision);
            if (watchingFrom == 0) {
                watchingFrom = revision + 1; // everything after what etcd had when the watch was made
            }
            return;
        }
        for (WatchEvent event : response.getEvents()) {
            if (event.getEventType() == WatchEvent.EventType.DELETE) {
                deleted(event.getKeyValue().getKey(), event.getKeyValue().getModRevision());
            }
        }
        lastRevision = Math.max(lastRevision, response.getHeader().getRevision());
    }

    /**
     * jetcd resumes a watch by itself after a broken connection, from the revision it last reported. It ends it
     * for good on etcd's "no leader" or a compaction; then it is opened again — from the last revision reported,
     * or after a compaction from now, when every waiter reads again (deletions may have been missed).
     */
    private void onError(Throwable error) {
        log.debug("The watch on etcd lock keys failed; jetcd resumes it, or it is opened again", error);
        boolean compacted = error instanceof CompactedException;
        scheduler.schedule(() -> {
            Watch.Watcher current = watcher;
            if (!closed && current != null && current.isClosed()) {
                if (compacted) {
                    watchingFrom = 0;
                    open(0);
                }
                else {
                    open(lastRevision + 1);
                }
                wakeEveryWaiter();
            }
        }, REOPEN_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** A key under the prefix is gone: a lease of ours is lost, or the waiter behind it tries again. */
    void deleted(ByteSequence key, long revision) {
        ByteSequence lock = keys.lockPrefixOf(key);
        synchronized (recentDeletions) {
            remember(key, revision);
            if (lock != null) {
                remember(lock, revision);
            }
        }
        LockKey own = at(key);
        if (own != null && revision > own.createRevision && own.createRevision != 0) {
            // A waiter whose key went queues again.
            gone(own, "etcd key of lock '{}' was deleted while held (its lease ran out, or an operator)");
        }
        wake(key);
        if (lock != null) {
            wake(lock);
        }
    }

    /** Removed and put again, so that a busy name's entry is the newest, not the first to be forgotten. */
    private void remember(ByteSequence keyOrLock, long revision) {
        recentDeletions.remove(keyOrLock);
        recentDeletions.put(keyOrLock, revision);
    }

    /**
     * Wakes the waiter when the key it waits for is deleted, or, for a lock prefix ({@link EtcdKeys#lockPrefix}),
     * when any key of that name is.
     *
     * @param key the waiter
     * @param predecessor the key it waits for, or its name's lock prefix
     * @param readRevision the revision at which the waiter saw it
     */
    void waitFor(LockKey key, ByteSequence predecessor, long readRevision) {
        if (predecessor.equals(watching(key))) {
            return; // already waiting for it (an engine re-check)
        }
        waitOn(key, predecessor);
        // Registered first, then looked up: a deletion the watch reports meanwhile is seen by one side or the other.
        Long deletedAt;
        synchronized (recentDeletions) {
            deletedAt = recentDeletions.get(predecessor);
        }
        long from = watchingFrom;
        if ((deletedAt != null && deletedAt > readRevision) || (from != 0 && readRevision < from - 1)) {
            stopWaiting(key);
            events().released(key.request().name(), key.owner()); // gone already, or read before the watch began
        }
    }

    /** A shared lease is gone: its holders lost their locks, its waiters queue again. */
    void sessionLost(SessionLease lease) {
        loseWhere(key -> key.session == lease, "etcd lease lost");
    }

    void close() {
        closed = true;
        Watch.Watcher current = watcher;
        if (current != null) {
            current.close();
        }
        clear();
    }
}
