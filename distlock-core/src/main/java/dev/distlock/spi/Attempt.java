package dev.distlock.spi;

import java.time.Duration;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * The answer of a store to one {@link LockStore#attempt attempt}: {@link Granted} with a fencing token, or
 * {@link Busy} with when trying again makes sense.
 */
public sealed interface Attempt permits Attempt.Granted, Attempt.Busy {

    /**
     * @param fencingToken the fencing token of the new holder, above every token issued for the name before
     * @return a granted attempt
     */
    static Attempt granted(long fencingToken) {
        return new Granted(fencingToken);
    }

    /**
     * @param retryAfter as for {@link Busy#retryAfter()}
     * @return a refused attempt
     */
    static Attempt busy(Duration retryAfter) {
        return new Busy(retryAfter, OptionalLong.empty());
    }

    /**
     * The lock was granted.
     *
     * @param fencingToken the fencing token of the new holder, above every token issued for the name before
     */
    record Granted(long fencingToken) implements Attempt {
    }

    /**
     * The lock is held by others (or, for permits, all permits are).
     *
     * @param retryAfter when trying again makes sense at the earliest without a wake-up (e.g. when the holder's lease
     *        ends); at least 1 ms. The engine caps it at 500 ms and tries earlier when woken by
     *        {@link StoreEvents#released}
     * @param refusedAtMicros only for a store that {@link HandsOver hands over}: the store's clock at the refusal in
     *        µs, which tells the engine whether a hand-over it hears of later was issued after this refusal; empty
     *        for every other store
     */
    record Busy(Duration retryAfter, OptionalLong refusedAtMicros) implements Attempt {

        /** Checks the values; a retry-after below 1 ms becomes 1 ms (a store's estimate may round down to 0). */
        public Busy {
            Objects.requireNonNull(retryAfter, "retryAfter");
            Objects.requireNonNull(refusedAtMicros, "refusedAtMicros");
            if (retryAfter.compareTo(Duration.ofMillis(1)) < 0) {
                retryAfter = Duration.ofMillis(1);
            }
        }
    }
}
