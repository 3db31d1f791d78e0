package dev.distlock;

/**
 * Work that returns a result and may throw a checked exception, for {@link LockService#callWithLock}: the exception
 * reaches the caller as it is, not wrapped.
 *
 * @param <T> the result type
 * @param <E> the checked exception the work may throw
 */
@FunctionalInterface
public interface ThrowingSupplier<T, E extends Exception> {

    /**
     * @return the result
     * @throws E when the work fails
     */
    T get() throws E;
}
