package dev.distlock.core;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.LockUnavailableException;
import org.jspecify.annotations.Nullable;

/**
 * Queues the threads of this JVM that want the same lock, so that only one of them at a time competes in the
 * store: the others wait locally, in arrival order, without store traffic.
 * <p>
 * An entry exists only while some thread wants or holds the lock: it is created on the first request and removed
 * when the last user leaves, so a million distinct lock names leave nothing behind.
 */
final class LocalQueues {

    private final ConcurrentHashMap<Key, Entry> entries = new ConcurrentHashMap<>();

    /** Readers of a name queue apart from exclusive requests: they compete one at a time but share the lock. */
    private record Key(String name, boolean shared) {
    }

    /** Registers interest in the name; must be paired with {@link #leave(Entry)}. */
    Entry join(String name, boolean shared) {
        return entries.compute(new Key(name, shared), (key, entry) -> {
            Entry joined = entry != null ? entry : new Entry(key);
            joined.users++;
            return joined;
        });
    }

    /**
     * @return a lease left for a local waiter (see {@link LocalHandOff}) that nobody will take any more, because
     *         the last user of the name left: the caller releases it to the store
     */
    @Nullable StoreLease leave(Entry entry) {
        boolean[] removed = { false };
        entries.computeIfPresent(entry.key, (key, current) -> {
            if (current != entry) {
                return current;
            }
            removed[0] = --current.users == 0;
            return removed[0] ? null : current;
        });
        return removed[0] ? entry.takeLeftLease() : null;
    }

    /**
     * A lock was released somewhere: wake this JVM's competitors for it. The one the store handed the lock to tries
     * at once; the others try when the store hand-over's window ends (if its waiter is gone, they must not wait for
     * their next re-check).
     *
     * @return how many competitors were woken (a hand-over to another wakes one only to bring its re-check forward)
     */
    int released(String name, @Nullable String handedTo, long handOverMillis) {
        long recheckAt = System.nanoTime() + handOverMillis * 1_000_000L + HAND_OVER_SLACK_NANOS;
        return wake(entries.get(new Key(name, false)), handedTo, recheckAt)
                + wake(entries.get(new Key(name, true)), handedTo, recheckAt);
    }

    private static int wake(@Nullable Entry entry, @Nullable String handedTo, long recheckAt) {
        return entry != null && entry.released(handedTo, recheckAt) ? 1 : 0;
    }

    /**
     * A store hand-over: a release handed the lock to a waiter with its fencing token. That waiter (exclusive, on
     * this JVM) hears of it and tries at once; every other competitor of the name as for {@link #released}.
     */
    void handedOver(String name, HandOver handOver) {
        Entry exclusive = entries.get(new Key(name, false));
        if (exclusive != null) {
            exclusive.handedOver(handOver);
        }
        released(name, handOver.handedTo(), handOver.windowMillis());
    }

    /**
     * A store hand-over to a competitor.
     *
     * @param handedTo the owner token of the request it was handed to
     * @param fencingToken the token the store issued
     * @param handedAtMicros the store's clock at the hand-over, in µs (not the token, which may be ahead of it)
     * @param windowMillis how long the hand-over lasts from then without a confirmation
     */
    record HandOver(String handedTo, long fencingToken, long handedAtMicros, long windowMillis) {
    }

    /** An attempt that failed in the store: when ({@link System#nanoTime()}) and what its thread was told. */
    record Failure(long atNanos, LockUnavailableException cause) {
    }

    /** Time after a hand-over window's end at which the other waiters try, so that its own waiter wins on time. */
    private static final long HAND_OVER_SLACK_NANOS = 2_000_000L;

    /** Wakes every thread waiting in the store, so that it sees at once that the service is shutting down. */
    void wakeAll() {
        for (Entry entry : entries.values()) {
            entry.wakeNow();
        }
    }

    /** @return the number of lock names with local state (for tests: stays flat) */
    int size() {
        return entries.size();
    }

    /**
     * The local queue of one lock name (and mode). Its state has one owner each: the turn (a FIFO permit) belongs
     * to the queue, the wake-up flags are written by the notifying thread and read by the competitor, and the
     * streak of local hand-offs is read and written only by the thread that holds the turn.
     */
    static final class Entry {

        private final Key key;

        /** Held by the one thread of this JVM that competes for, or holds, the lock in the store. FIFO. */
        private final Semaphore turn = new Semaphore(1, true);

        /** The thread waiting in the store now, woken by release notifications. */
        private volatile @Nullable Thread competitor;

        /** The owner token the competitor asks with; a store hand-over may name it. */
        private volatile @Nullable String competitorToken;

        /** A hand-over to the competitor's token heard since its last attempt, or null. */
        private final AtomicReference<@Nullable HandOver> handOver = new AtomicReference<>();

        /** Set when the competitor should try at once. */
        private volatile boolean tryNow;

        /** When non-zero, the competitor tries at this {@link System#nanoTime()} at the latest. */
        private volatile long recheckAtNanos;

        /** Guarded by the map's per-key lock in compute. */
        private int users;

        /** A lease its holder left for the next local thread ({@link LocalHandOff}). */
        private final AtomicReference<@Nullable StoreLease> leftLease = new AtomicReference<>();

        /** The last attempt of this name that failed in the store, for the waiters queued when it failed; or null. */
        private volatile @Nullable Failure lastFailure;

        /** Local hand-offs since the lock came from the store; turn holder only. */
        private int streakCount;

        /** When the lock came from the store ({@link System#nanoTime()}); turn holder only. */
        private long streakStartNanos;

        private Entry(Key key) {
            this.key = key;
        }

        String name() {
            return key.name();
        }

        boolean shared() {
            return key.shared();
        }

        /** Waits, in arrival order, until this thread is the JVM's one to compete; false when time ran out first. */
        boolean awaitTurn(long timeoutNanos) throws InterruptedException {
            return turn.tryAcquire(Math.max(0, timeoutNanos), TimeUnit.NANOSECONDS);
        }

        /** Lets the next thread of this JVM compete (or take a lease left for it). */
        void passTurn() {
            turn.release();
        }

        /** @return whether another thread of this JVM waits for its turn */
        boolean othersWaiting() {
            return turn.hasQueuedThreads();
        }

        /** The calling thread competes in the store with this owner token until {@link #stopCompeting()}. */
        void compete(String ownerToken) {
            competitorToken = ownerToken;
            handOver.set(null);
            tryNow = false;
            recheckAtNanos = 0;
            competitor = Thread.currentThread();
        }

        void stopCompeting() {
            competitor = null;
            competitorToken = null;
        }

        /** A release somewhere: the waiter it was handed to tries now, the others at {@code recheckAt}. */
        private boolean released(@Nullable String handedTo, long recheckAt) {
            Thread waiting = competitor;
            if (waiting == null) {
                return false;
            }
            if (handedTo == null || handedTo.equals(competitorToken)) {
                tryNow = true;
            }
            else {
                long earlier = recheckAtNanos;
                recheckAtNanos = recheckAt;
                if (earlier != 0 && recheckAt - earlier >= 0) {
                    return false; // it wakes by the earlier re-check and reads this one then
                }
            }
            LockSupport.unpark(waiting);
            return true;
        }

        /** Keeps the hand-over for the competitor it is for (set before the wake-up that follows reads it). */
        private void handedOver(HandOver given) {
            if (given.handedTo().equals(competitorToken)) {
                handOver.set(given);
            }
        }

        /**
         * @param ownerToken the competitor's owner token (a hand-over for an earlier competitor's is dropped)
         * @return the hand-over heard for that competitor since its last attempt, once; null when none (the
         *         competitor then tries in the store)
         */
        @Nullable HandOver takeHandOver(String ownerToken) {
            HandOver given = handOver.getAndSet(null);
            return given != null && given.handedTo().equals(ownerToken) ? given : null;
        }

        private void wakeNow() {
            Thread waiting = competitor;
            if (waiting != null) {
                tryNow = true;
                LockSupport.unpark(waiting);
            }
        }

        /** @return whether the competitor was told to try at once */
        boolean shouldTryNow() {
            return tryNow;
        }

        /** @return when the competitor should try at the latest, or 0 when no release told it */
        long recheckAtNanos() {
            return recheckAtNanos;
        }

        /** The competitor took the wake-up into account. */
        void clearWakeUp() {
            tryNow = false;
            recheckAtNanos = 0;
        }

        /**
         * The competitor's attempt failed (the store did not answer in time, or failed): the threads queued behind
         * it fail with it when their turn comes, rather than each wait for the store in turn (on a hung store, one
         * {@code distlock.command-timeout} per waiter). Set before the turn is passed on.
         */
        void failed(LockUnavailableException failure) {
            lastFailure = new Failure(System.nanoTime(), failure);
        }

        /**
         * @param queuedAtNanos when the calling thread joined the queue
         * @return the failure of an attempt that ended after then, or null (the thread tries the store itself)
         */
        @Nullable Failure failedSince(long queuedAtNanos) {
            Failure last = lastFailure;
            return last != null && last.atNanos() - queuedAtNanos >= 0 ? last : null;
        }

        /** A local hand-off: the lease waits here for the next thread of this JVM. */
        void leaveLease(StoreLease lease) {
            leftLease.set(lease);
        }

        @Nullable StoreLease takeLeftLease() {
            return leftLease.getAndSet(null);
        }

        /** The lock came from the store: a new streak of local hand-offs starts. Turn holder only. */
        void startStreak() {
            streakCount = 0;
            streakStartNanos = System.nanoTime();
        }

        /** @return whether the streak may go on with one more local hand-off. Turn holder only. */
        boolean streakAllows(int maxCount, long maxNanos) {
            return streakCount < maxCount && System.nanoTime() - streakStartNanos < maxNanos;
        }

        /** One more local hand-off in this streak. Turn holder only. */
        void countHandOff() {
            streakCount++;
        }
    }
}
