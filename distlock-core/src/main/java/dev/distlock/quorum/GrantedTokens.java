package dev.distlock.quorum;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.core.ClockDrift;
import dev.distlock.spi.LockRequest;

/**
 * The fencing token the quorum granted to each request while that grant is surely still held, so that the holder
 * asking again gets the same token. Each node has tokens of its own and a repeated attempt may be decided by a
 * different majority, whose highest token differs; the first grant's token stays right as long as the majority
 * that granted it still holds the lease, since nobody else can have held the lock in between. A grant counts as
 * held until the lease's drift-reduced deadline ({@link ClockDrift#deadline}) from when the attempt (or the last
 * renewal) was sent; it is forgotten on release, undo and loss, and expired entries are swept as grants come in.
 */
final class GrantedTokens {

    private static final int MIN_SWEEP_SIZE = 64;

    private record Grant(long token, long validUntilNanos) {

        boolean isValid(long now) {
            return validUntilNanos - now > 0;
        }
    }

    private final Map<LockRequest, Grant> grants = new ConcurrentHashMap<>();

    /** The size beyond which the next grant sweeps expired entries: twice what was left by the last sweep. */
    private final AtomicInteger sweepAt = new AtomicInteger(MIN_SWEEP_SIZE);

    /**
     * @param request the granted request
     * @param token the highest token of the majority that granted it this time
     * @param sentNanos when the attempt was sent ({@link System#nanoTime()})
     * @return the token of this grant: the one granted before to the same request while that grant is still
     *         held, else {@code token}
     */
    long grant(LockRequest request, long token, long sentNanos) {
        long now = System.nanoTime();
        long validUntil = ClockDrift.deadline(sentNanos, request.leaseTime());
        Grant granted = grants.merge(request, new Grant(token, validUntil),
                (held, fresh) -> held.isValid(now) ? new Grant(held.token(), validUntil) : fresh);
        if (grants.size() > sweepAt.get()) {
            grants.values().removeIf(grant -> !grant.isValid(now));
            sweepAt.set(Math.max(MIN_SWEEP_SIZE, 2 * grants.size()));
        }
        return granted.token();
    }

    /**
     * @param request a request whose lease a majority renewed
     * @param sentNanos when the renewal was sent
     */
    void renewed(LockRequest request, long sentNanos) {
        long validUntil = ClockDrift.deadline(sentNanos, request.leaseTime());
        grants.computeIfPresent(request, (r, held) -> new Grant(held.token(), validUntil));
    }

    /** @param request a request released, undone or lost: its next grant carries the nodes' new tokens */
    void forget(LockRequest request) {
        grants.remove(request);
    }

    /** @return how many grants are remembered, expired ones not swept yet included */
    int size() {
        return grants.size();
    }
}
