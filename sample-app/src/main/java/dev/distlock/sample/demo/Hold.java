package dev.distlock.sample.demo;

/**
 * One entry of the lock timeline: a call that asked for a lock, waited, and ran the locked method's body (a hold),
 * or gave up waiting ({@link #acquiredAt()} is null). Times are microseconds since the epoch.
 *
 * @param instanceId the instance that made the call ({@link InstanceRegistry#id()})
 * @param lockName the lock, e.g. {@code stock:1}
 * @param fencingToken the token of the lock held during the body; 0 when the body ran without a lock
 * @param requestedAt when the caller asked for the lock
 * @param acquiredAt when the body started (the lock was held), or null when it never did
 * @param releasedAt when the body ended (the lock is released right after), or when the caller gave up waiting
 * @param outcome what the call came to: {@code sold}, {@code sold-out}, {@code restock}, {@code timeout},
 *        {@code unavailable} or {@code error}
 * @param overlap whether the body overlapped another hold of the same lock: two holders at once. Computed when the
 *        history is read ({@link OverlapMarker}); always false when recorded
 * @param lockGrantedAt when the lock service granted the lock (before the transaction began and the body started), or
 *        null when no lock was granted (an unlocked call, a wait that gave up); see {@link TimelineLockListener}
 * @param lockReleasedAt when the lock service's release returned (after the body ended and the transaction
 *        committed), or null when no lock was released
 */
public record Hold(String instanceId, String lockName, long fencingToken, long requestedAt, Long acquiredAt,
        long releasedAt, String outcome, boolean overlap, Long lockGrantedAt, Long lockReleasedAt) {

    /**
     * An entry without the lock's own grant and release times (an unlocked call, or a wait that gave up). Not public,
     * so that the canonical constructor stays the only public one, the one the database rows are mapped with.
     *
     * @param instanceId see the record
     * @param lockName see the record
     * @param fencingToken see the record
     * @param requestedAt see the record
     * @param acquiredAt see the record
     * @param releasedAt see the record
     * @param outcome see the record
     * @param overlap see the record
     */
    Hold(String instanceId, String lockName, long fencingToken, long requestedAt, Long acquiredAt,
            long releasedAt, String outcome, boolean overlap) {
        this(instanceId, lockName, fencingToken, requestedAt, acquiredAt, releasedAt, outcome, overlap, null, null);
    }

    /** @return whether the body ran (a hold rather than a wait that gave up) */
    public boolean held() {
        return acquiredAt != null;
    }

    /** @return this hold, marked as overlapping another one */
    Hold overlapping() {
        return new Hold(instanceId, lockName, fencingToken, requestedAt, acquiredAt, releasedAt, outcome, true,
                lockGrantedAt, lockReleasedAt);
    }
}
