package dev.distlock.jdbc;

/** What an attempt found in the lock table, before it becomes the store's {@link dev.distlock.spi.Attempt}. */
sealed interface Outcome {

    /** The one busy outcome. */
    Outcome BUSY = new Busy();

    /**
     * The request holds the name (or one of its permits) now.
     *
     * @param fencingToken the holder's token
     */
    record Granted(long fencingToken) implements Outcome {
    }

    /** Held by others as much as the request allows: try again later. */
    record Busy() implements Outcome {
    }

    /**
     * Held with another number of permits than the request's: an error for the caller.
     *
     * @param permits the holders' permits, 1 for a lock
     */
    record HeldWithOtherPermits(int permits) implements Outcome {
    }
}
