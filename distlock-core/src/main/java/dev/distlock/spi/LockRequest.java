package dev.distlock.spi;

import java.time.Duration;
import java.util.Objects;

import dev.distlock.LockException;
import dev.distlock.LockType;

/**
 * One request for a lock, resolved once from {@link dev.distlock.LockOptions} and the configured defaults, and
 * passed unchanged to every attempt a {@link LockStore} makes for it.
 *
 * @param name the full lock name
 * @param type the lock type
 * @param ownerToken the unguessable token of this acquisition: a store records it as the owner and checks it on
 *        release and renewal; never logged
 * @param waitTime how long the caller waits in all
 * @param leaseTime the lease: renewed by the watchdog when {@code watchdog} is true, else fixed
 * @param watchdog whether the lease is renewed while the lock is held
 * @param permits how many holders may own the name at once ({@link dev.distlock.LockOptions#withPermits}): 1 for a
 *        lock; more only with an exclusive type, for a store whose {@link StoreTraits#permits()} is true. A store
 *        reads the two as one {@link #mode()}
 * @param holder the requesting instance's {@code distlock.instance-id}: a store keeps it beside the owner token when
 *        it grants, for {@link LockStore#describe}; public (unlike the owner token), without control characters
 */
public record LockRequest(String name, LockType type, String ownerToken, Duration waitTime, Duration leaseTime,
        boolean watchdog, int permits, String holder) {

    /** The holder of a request made without one (tests, tools): what {@link LockStore#describe} then tells. */
    public static final String NO_HOLDER = dev.distlock.LockInfo.UNKNOWN_HOLDER;

    /**
     * Checks the values.
     */
    public LockRequest {
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(type, "type");
        Objects.requireNonNull(ownerToken, "ownerToken");
        Objects.requireNonNull(waitTime, "waitTime");
        Objects.requireNonNull(leaseTime, "leaseTime");
        Objects.requireNonNull(holder, "holder");
        LockMode.of(type, permits); // checks the permits against the type
    }

    /**
     * A request without a holder identity ({@link #NO_HOLDER}).
     *
     * @param name the full lock name
     * @param type the lock type
     * @param ownerToken the unguessable token of this acquisition
     * @param waitTime how long the caller waits in all
     * @param leaseTime the lease
     * @param watchdog whether the lease is renewed while the lock is held
     * @param permits how many holders may own the name at once
     */
    public LockRequest(String name, LockType type, String ownerToken, Duration waitTime, Duration leaseTime,
            boolean watchdog, int permits) {
        this(name, type, ownerToken, waitTime, leaseTime, watchdog, permits, NO_HOLDER);
    }

    /**
     * A request for a lock (one permit).
     *
     * @param name the full lock name
     * @param type the lock type
     * @param ownerToken the unguessable token of this acquisition
     * @param waitTime how long the caller waits in all
     * @param leaseTime the lease
     * @param watchdog whether the lease is renewed while the lock is held
     */
    public LockRequest(String name, LockType type, String ownerToken, Duration waitTime, Duration leaseTime,
            boolean watchdog) {
        this(name, type, ownerToken, waitTime, leaseTime, watchdog, 1);
    }

    /**
     * @return how the request holds its name: exclusive, shared (a reader) or one of several permits; what a store
     *         acts on (it never reads {@link #type()}, whose other distinctions are the engine's)
     */
    public LockMode mode() {
        return LockMode.of(type, permits);
    }

    /**
     * @return true when other requests of this JVM may hold the name at the same time (readers, permits): the
     *         engine then lets its threads compete one after the other without waiting for the holder
     */
    public boolean sharesName() {
        return type == LockType.READ || permits > 1;
    }

    /**
     * The failure of an attempt whose permits differ from those the name is held or awaited with.
     *
     * @param heldWith the permits of the name's holders or waiters (1 for a lock, including a read/write lock)
     * @return the exception to fail the attempt with, naming both numbers
     */
    public LockException permitsMismatch(int heldWith) {
        return new LockException("Lock '" + name + "' is held or awaited with " + heldWith + " permit"
                + (heldWith == 1 ? "" : "s") + ", but this request asks for " + permits + ": every caller of a name "
                + "must ask with the same number of permits");
    }

    /** @return the lease in milliseconds */
    public long leaseMillis() {
        return leaseTime.toMillis();
    }

    @Override
    public String toString() {
        // Never the owner token: it is the proof of ownership.
        return "LockRequest[" + name + ", " + type + ", wait=" + waitTime + ", lease=" + leaseTime
                + (watchdog ? " (watchdog)" : " (fixed)") + (permits > 1 ? ", " + permits + " permits" : "")
                + ", holder=" + holder + "]";
    }
}
