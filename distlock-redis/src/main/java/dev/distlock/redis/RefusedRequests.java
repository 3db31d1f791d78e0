package dev.distlock.redis;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import dev.distlock.spi.Attempt;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.Waiting;

/**
 * The requests this store refused while they queue ({@link Waiting.Queue}): {@code acquire.lua} takes a first attempt
 * apart from a repeated one ({@link ScriptMarker#FIRST} / {@link ScriptMarker#RETRY}). Only the first may take the
 * uncontended path (one {@code SET NX}); a repeated one also leaves the waiters' line and drops its writer's intent
 * when granted. This is the store's own bookkeeping, so the generic {@code attempt} carries no Redis-only flag.
 * <p>
 * Bounded by the engine's duties: after a busy answer to a queueing request the engine always either attempts again
 * until granted, or cancels the request (deadline, interrupt, shutdown, a late answer); a grant and a cancel each
 * forget it. A last try ({@link Waiting#LAST_TRY}, as a quorum's votes are) is never recorded.
 */
final class RefusedRequests {

    private final Set<String> owners = ConcurrentHashMap.newKeySet();

    /** @return whether this store refused the request before (it then waits in the store's line) */
    boolean refusedBefore(LockRequest request) {
        return owners.contains(request.ownerToken());
    }

    /** Notes the store's answer to an attempt of the request. */
    void answered(LockRequest request, Waiting waiting, Attempt attempt) {
        if (attempt instanceof Attempt.Granted) {
            owners.remove(request.ownerToken());
        }
        else if (waiting instanceof Waiting.Queue) {
            owners.add(request.ownerToken());
        }
    }

    /** The request stopped waiting. */
    void cancelled(LockRequest request) {
        owners.remove(request.ownerToken());
    }

    /** @return how many requests are remembered (for tests) */
    int size() {
        return owners.size();
    }
}
