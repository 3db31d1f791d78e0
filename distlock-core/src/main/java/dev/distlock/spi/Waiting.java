package dev.distlock.spi;

import java.time.Duration;
import java.util.Objects;

/**
 * What the caller of an {@link LockStore#attempt attempt} does after a busy answer: it {@link Queue queues} (waits
 * and tries again, up to a remaining time), or this is its {@link LastTry last try}.
 */
public sealed interface Waiting permits Waiting.Queue, Waiting.LastTry {

    /** The caller does not try again: a store must not leave a waiter's entry behind for it. */
    LastTry LAST_TRY = new LastTry();

    /**
     * @param remaining how much longer the caller waits
     * @return {@link #LAST_TRY} when less than a millisecond is left, else a {@link Queue}
     */
    static Waiting upTo(Duration remaining) {
        return remaining.compareTo(Duration.ofMillis(1)) < 0 ? LAST_TRY : new Queue(remaining);
    }

    /** @return how much longer the caller waits: zero for a last try */
    Duration remaining();

    /**
     * The caller will try again after a busy answer, until {@code remaining} is over. A store that queues waiters
     * (a node or key in a server-ordered line, a waiter list) may record it as a waiter, so that a release serves it
     * in arrival order; it must then drop the entry on {@link LockStore#cancel} and on a grant.
     *
     * @param remaining how much longer the caller waits; at least 1 ms
     */
    record Queue(Duration remaining) implements Waiting {

        /** Checks the value. */
        public Queue {
            Objects.requireNonNull(remaining, "remaining");
            if (remaining.compareTo(Duration.ofMillis(1)) < 0) {
                throw new IllegalArgumentException("Waiting.Queue needs at least 1 ms, use Waiting.LAST_TRY: "
                        + remaining);
            }
        }
    }

    /**
     * The caller's last (or only) try, e.g. {@code tryLock()} without a wait: the store answers and leaves no
     * waiter's entry behind (a store that had queued the caller removes its entry before answering busy).
     */
    record LastTry() implements Waiting {

        @Override
        public Duration remaining() {
            return Duration.ZERO;
        }
    }
}
