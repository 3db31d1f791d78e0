package dev.distlock.core;

import java.util.Optional;

import dev.distlock.LockInfo;

/**
 * What an operator may do to a lock whoever holds it, for the actuator endpoint's operations on one lock: ask who
 * holds it, and release it. Not for application code: a holder releases its own lock with its handle (and asks
 * {@link dev.distlock.LockService#describe}).
 */
public interface LockAdministration {

    /**
     * Who holds a lock, on any instance, read from the store ({@link dev.distlock.LockService#describe}).
     *
     * @param name the full lock name
     * @return the holder, or empty when the lock is free
     * @throws dev.distlock.LockUnavailableException when the store did not answer within
     *         {@code distlock.command-timeout}
     * @throws IllegalArgumentException when the name is empty
     */
    Optional<LockInfo> describe(String name);

    /**
     * Releases a lock whoever holds it, on any instance. The next holder's fencing token is above every token issued
     * for the name before; a holder on another instance learns of the loss at its next renewal (or sooner, where the
     * store watches its holders), one on this instance at once.
     *
     * @param name the full lock name, as the endpoint lists it
     * @return true when somebody held the lock (and no longer does), false when it was free
     * @throws dev.distlock.LockUnavailableException when the store did not answer within
     *         {@code distlock.command-timeout}
     * @throws IllegalArgumentException when the name is empty
     */
    boolean forceRelease(String name);
}
