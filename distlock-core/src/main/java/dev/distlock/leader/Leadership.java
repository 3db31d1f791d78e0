package dev.distlock.leader;

import java.util.Optional;

import dev.distlock.LockHandle;

/**
 * One instance's campaign for the leadership of a group ({@link dev.distlock.LockService#campaign}): it is leader
 * while it holds the group's lock, a watchdog lease of {@code distlock.lease-time}. A candidate that lost or gave up
 * the leadership campaigns again by itself until it is {@link #close() closed}.
 */
public interface Leadership extends AutoCloseable {

    /** @return the group */
    String group();

    /** @return whether this instance leads the group now (its lease can still be counted on) */
    boolean isLeader();

    /** @return the lease while leader: its fencing token fences the leader's writes; empty otherwise */
    Optional<LockHandle> lease();

    /**
     * Gives the leadership up now, if this instance has it ({@link LeadershipListener#revoked} first, then the
     * release), and campaigns again a second later, so that a candidate that was already waiting leads next.
     */
    void yieldLeadership();

    /**
     * Leaves the election: the leader is told {@link LeadershipListener#revoked}, then its lease is released.
     * Idempotent. Returns once the lease was released (or the campaign's thread did not end within the command
     * timeout).
     */
    @Override
    void close();
}
