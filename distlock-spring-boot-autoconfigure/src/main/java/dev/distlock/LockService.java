package dev.distlock;

import java.util.Optional;
import java.util.function.Supplier;

/**
 * Distributed locks by name. Names are free-form; every Redis key written for a name starts with
 * {@code distlock.key-prefix + ":"}.
 * <p>
 * A call chain (thread) that holds a lock and asks for it again gets it at once without a Redis round trip; Redis
 * is released when the outermost holder releases.
 */
public interface LockService {

    /**
     * Tries to acquire the lock, waiting up to {@code options.waitTime()}.
     *
     * @param name the lock name
     * @param options wait, lease and type
     * @return the handle, or empty when the lock was not acquired in time
     * @throws LockUnavailableException when Redis cannot be reached or answers an error
     */
    Optional<LockHandle> tryLock(String name, LockOptions options);

    /**
     * Acquires the lock, waiting up to {@code options.waitTime()}.
     *
     * @param name the lock name
     * @param options wait, lease and type
     * @return the handle
     * @throws LockTimeoutException when the wait time elapses
     * @throws LockUnavailableException when Redis cannot be reached or answers an error
     */
    default LockHandle lock(String name, LockOptions options) {
        return tryLock(name, options).orElseThrow(() -> new LockTimeoutException(
                "Lock '" + name + "' not acquired within " + describeWait(options)));
    }

    /**
     * Runs the action while holding the lock and releases it afterwards.
     *
     * @param name the lock name
     * @param options wait, lease and type
     * @param action the work
     * @param <T> the result type
     * @return what the action returned
     * @throws LockTimeoutException when the wait time elapses (the action did not run)
     * @throws LockUnavailableException when Redis cannot be reached (the action did not run)
     */
    default <T> T executeWithLock(String name, LockOptions options, Supplier<T> action) {
        try (LockHandle handle = lock(name, options)) {
            return action.get();
        }
    }

    /**
     * Runs the action while holding the lock and releases it afterwards.
     *
     * @param name the lock name
     * @param options wait, lease and type
     * @param action the work
     */
    default void runWithLock(String name, LockOptions options, Runnable action) {
        executeWithLock(name, options, () -> {
            action.run();
            return null;
        });
    }

    /**
     * {@link #tryLock(String, LockOptions)} with the configured defaults.
     *
     * @param name the lock name
     * @return the handle, or empty
     */
    default Optional<LockHandle> tryLock(String name) {
        return tryLock(name, LockOptions.defaults());
    }

    /**
     * {@link #lock(String, LockOptions)} with the configured defaults.
     *
     * @param name the lock name
     * @return the handle
     */
    default LockHandle lock(String name) {
        return lock(name, LockOptions.defaults());
    }

    /**
     * {@link #executeWithLock(String, LockOptions, Supplier)} with the configured defaults.
     *
     * @param name the lock name
     * @param action the work
     * @param <T> the result type
     * @return what the action returned
     */
    default <T> T executeWithLock(String name, Supplier<T> action) {
        return executeWithLock(name, LockOptions.defaults(), action);
    }

    /**
     * {@link #runWithLock(String, LockOptions, Runnable)} with the configured defaults.
     *
     * @param name the lock name
     * @param action the work
     */
    default void runWithLock(String name, Runnable action) {
        runWithLock(name, LockOptions.defaults(), action);
    }

    private static String describeWait(LockOptions options) {
        return options.waitTime().map(Object::toString).orElse("the configured distlock.wait-time");
    }
}
