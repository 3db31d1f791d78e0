package dev.distlock.spi;

/**
 * The answer of a store to one {@link LockStore#attempt attempt}: the lock was granted with a fencing token, or it
 * is busy and worth trying again after a while.
 */
public final class Attempt {

    private final long fencingToken;

    private final long retryAfterMillis;

    private final long refusedAtToken;

    private Attempt(long fencingToken, long retryAfterMillis, long refusedAtToken) {
        this.fencingToken = fencingToken;
        this.retryAfterMillis = retryAfterMillis;
        this.refusedAtToken = refusedAtToken;
    }

    /**
     * @param fencingToken the fencing token of the new holder, above every token issued for the name before
     * @return a granted attempt
     */
    public static Attempt acquired(long fencingToken) {
        return new Attempt(fencingToken, 0, 0);
    }

    /**
     * @param retryAfterMillis when trying again makes sense at the earliest without a wake-up (e.g. when the
     *        holder's lease ends); the engine caps it and may try earlier when woken by
     *        {@link StoreEvents#released}
     * @return a refused attempt
     */
    public static Attempt busy(long retryAfterMillis) {
        return busy(retryAfterMillis, 0);
    }

    /**
     * A refusal that says when the store made it, for a store that hands locks over with their token
     * ({@link StoreEvents#handedOver}): a hand-over the engine hears of later is fresh only when it was issued after
     * this refusal.
     *
     * @param retryAfterMillis as for {@link #busy(long)}
     * @param refusedAtToken the store's clock at the refusal in the scale of its fencing tokens (µs for a store whose
     *        tokens follow the clock), or 0 when unknown
     * @return a refused attempt
     */
    public static Attempt busy(long retryAfterMillis, long refusedAtToken) {
        return new Attempt(0, Math.max(1, retryAfterMillis), refusedAtToken);
    }

    /** @return whether the lock was granted */
    public boolean isAcquired() {
        return retryAfterMillis == 0;
    }

    /** @return the fencing token of a granted attempt */
    public long fencingToken() {
        return fencingToken;
    }

    /** @return for a refused attempt, the suggested delay before the next one */
    public long retryAfterMillis() {
        return retryAfterMillis;
    }

    /** @return for a refused attempt, the store's clock at the refusal in its tokens' scale; 0 when unknown */
    public long refusedAtToken() {
        return refusedAtToken;
    }

    @Override
    public String toString() {
        return isAcquired() ? "Attempt[acquired, fencingToken=" + fencingToken + "]"
                : "Attempt[busy, retryAfter=" + retryAfterMillis + "ms]";
    }
}
