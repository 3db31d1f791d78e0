package dev.distlock.leader;

import dev.distlock.LockHandle;

/**
 * Told when this instance becomes and stops being the leader of a group. Called on the campaign's own thread, one
 * call at a time, {@code granted} and {@code revoked} alternating: return promptly (hand long work to another
 * thread), since {@code revoked} cannot be called while {@code granted} still runs.
 */
public interface LeadershipListener {

    /**
     * This instance leads the group from now on.
     *
     * @param group the group
     * @param lease the leadership's lease; pass its fencing token to what the leader writes
     */
    void granted(String group, LockHandle lease);

    /**
     * This instance no longer leads the group: it gave the leadership up, left the election, or its lease was lost
     * or can have expired. Called no later than the moment the lease can have expired in the store, so another
     * instance is never granted the leadership before this one was told. Stop the leader's work here.
     *
     * @param group the group
     */
    void revoked(String group);
}
