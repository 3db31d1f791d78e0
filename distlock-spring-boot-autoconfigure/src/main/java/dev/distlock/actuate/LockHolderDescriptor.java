package dev.distlock.actuate;

import dev.distlock.LockInfo;
import org.jspecify.annotations.Nullable;

/**
 * Who holds one lock, as {@code GET /actuator/distlock/{name}} answers it: {@link LockInfo} with the lease in
 * milliseconds, as the endpoint's listing gives it.
 *
 * @param name the lock name
 * @param holder the holder's {@code distlock.instance-id}
 * @param fencingToken the holder's fencing token
 * @param leaseRemainingMillis how long the holder's lease still runs, as the store counts it
 * @param waiters how many wait in the store's line, or {@code null} where the store cannot tell
 */
public record LockHolderDescriptor(String name, String holder, long fencingToken, long leaseRemainingMillis,
        @Nullable Integer waiters) {

    /**
     * @param info the store's answer
     * @return its descriptor
     */
    public static LockHolderDescriptor of(LockInfo info) {
        return new LockHolderDescriptor(info.name(), info.holder(), info.fencingToken(),
                info.leaseRemaining().toMillis(), info.waiters());
    }
}
