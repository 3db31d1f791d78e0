package dev.distlock.integration;

import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;

import dev.distlock.LockOptions;
import dev.distlock.LockService;

import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.ExpirableLockRegistry;

/**
 * Spring Integration's lock registry on distlock: {@link #obtain} gives the lock of a key, a
 * {@link DistributedLock} that excludes every thread of every instance through the distlock store the
 * {@link LockService} uses. The key is the distlock lock name (namespaced in the store by {@code distlock.key-prefix}
 * like any name); keys are strings, as Spring Integration's own registries require.
 * <p>
 * Each lock is {@link LockService#asLock thread-owned}, as {@link java.util.concurrent.locks.Lock} expects: reentrant
 * for the thread that locked it, unlocked by that thread only. Its lease is watchdog-renewed unless the options fix
 * it or a call passes a time to live ({@code lock(ttl)}, {@code tryLock(wait, ttl)}), which is then a fixed lease for
 * that acquisition. The owner holds it only while its lease does: after a lost lease its next locking call takes the
 * lock anew or fails, which is how {@code LockRegistryLeaderInitiator} notices that it no longer leads.
 * <p>
 * The same key gives the same lock object while the registry remembers it. It remembers at most {@value #SWEEP_ABOVE}
 * keys before it forgets those no thread holds (and {@link #expireUnusedOlderThan} forgets unused ones on demand), so
 * memory stays bounded however many keys pass through. Forgetting a lock is always safe: exclusion is the store's,
 * and a lock that some thread holds is never forgotten.
 */
public final class DistlockLockRegistry implements ExpirableLockRegistry<DistributedLock> {

    /** Above this many remembered keys, an {@link #obtain} forgets the locks that no thread holds. */
    static final int SWEEP_ABOVE = 10_000;

    private final LockService locks;

    private final LockOptions options;

    private final ConcurrentMap<String, DistlockDistributedLock> remembered = new ConcurrentHashMap<>();

    /**
     * A registry whose locks take the configured defaults of the lock service ({@code distlock.*}).
     *
     * @param locks the lock service
     */
    public DistlockLockRegistry(LockService locks) {
        this(locks, LockOptions.defaults());
    }

    /**
     * @param locks the lock service
     * @param options the options of every lock of the registry (lease time, type); the wait time is ignored, as
     *        each locking method has its own
     */
    public DistlockLockRegistry(LockService locks, LockOptions options) {
        this.locks = locks;
        this.options = options;
    }

    /**
     * @param lockKey the lock name, a {@link String}
     * @return the key's lock
     * @throws IllegalArgumentException when the key is not a string
     */
    @Override
    public DistributedLock obtain(Object lockKey) {
        if (!(lockKey instanceof String name)) {
            throw new IllegalArgumentException("DistlockLockRegistry takes String lock keys (distlock lock names), not "
                    + (lockKey == null ? "null" : lockKey.getClass().getName()));
        }
        if (remembered.size() > SWEEP_ABOVE) {
            forgetUnusedSince(Long.MAX_VALUE);
        }
        return remembered.compute(name, (key, known) -> known != null ? known.obtained()
                : new DistlockDistributedLock(locks.asLock(key, options)));
    }

    /**
     * Forgets the locks that no thread holds and that were not obtained in the last {@code age} milliseconds.
     *
     * @param age the age in milliseconds
     */
    @Override
    public void expireUnusedOlderThan(long age) {
        forgetUnusedSince(System.currentTimeMillis() - age);
    }

    private void forgetUnusedSince(long before) {
        remembered.values().removeIf(lock -> lock.unusedSince(before));
    }

    @Override
    public String toString() {
        return "DistlockLockRegistry[" + locks + "]";
    }
}
