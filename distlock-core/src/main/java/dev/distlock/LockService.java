package dev.distlock;

import java.time.Duration;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.locks.Lock;
import java.util.function.Supplier;

import dev.distlock.leader.Leadership;
import dev.distlock.leader.LeadershipListener;

/**
 * Distributed locks by name. Names are free-form; a store keeps them in its own namespace (for Redis, every key
 * starts with {@code distlock.key-prefix + ":"}).
 * <p>
 * <b>Reentrancy belongs to scopes.</b> Inside {@link #executeWithLock} / {@link #runWithLock} (and inside a
 * {@code @DistributedLock} method) the call chain holds the lock in a scope ({@link LockContext}): asking for the
 * same name again there, with any method of this interface, is granted at once without a store round trip, and the
 * store is released when the outermost scope ends. A handle returned by {@link #lock} / {@link #tryLock} outside
 * such a scope is a plain acquisition, bound to no thread: it may be released from any thread, and asking for the
 * same name again — on any thread — waits like any other caller.
 */
public interface LockService {

    /**
     * Tries to acquire the lock, waiting up to {@code options.waitTime()}.
     *
     * @param name the lock name
     * @param options wait, lease and type
     * @return the handle, or empty when the lock was not acquired in time
     * @throws LockUnavailableException when the store cannot be reached or answers an error
     */
    Optional<LockHandle> tryLock(String name, LockOptions options);

    /**
     * Acquires the lock, waiting up to {@code options.waitTime()}.
     *
     * @param name the lock name
     * @param options wait, lease and type
     * @return the handle
     * @throws LockTimeoutException when the wait time elapses
     * @throws LockUnavailableException when the store cannot be reached or answers an error
     */
    default LockHandle lock(String name, LockOptions options) {
        return tryLock(name, options).orElseThrow(() -> new LockTimeoutException(
                "Lock '" + name + "' not acquired within " + describeWait(effectiveWait(options))
                        + LockTimeoutException.heldBy(this, name),
                List.of(name), effectiveWait(options).orElse(null), null));
    }

    /**
     * Runs the action in a scope of the lock (see {@link LockContext}) and releases it afterwards.
     *
     * @param name the lock name
     * @param options wait, lease and type
     * @param action the work
     * @param <T> the result type
     * @return what the action returned
     * @throws LockTimeoutException when the wait time elapses (the action did not run)
     * @throws LockUnavailableException when the store cannot be reached (the action did not run)
     */
    default <T> T executeWithLock(String name, LockOptions options, Supplier<T> action) {
        return callWithLock(name, options, action::get);
    }

    /**
     * {@link #executeWithLock(String, LockOptions, Supplier)} for work that throws a checked exception: it reaches
     * the caller as it is, after the lock was released. With {@link OnLeaseLost#INTERRUPT} the thread is interrupted
     * at a loss while the action runs, and the caller gets {@link LeaseLostException} whatever the action did.
     *
     * @param name the lock name
     * @param options wait, lease and type
     * @param action the work
     * @param <T> the result type
     * @param <E> the checked exception the work may throw
     * @return what the action returned
     * @throws E when the action threw it
     * @throws LockTimeoutException when the wait time elapses (the action did not run)
     * @throws LockUnavailableException when the store cannot be reached (the action did not run)
     */
    default <T, E extends Exception> T callWithLock(String name, LockOptions options, ThrowingSupplier<T, E> action)
            throws E {
        LockHandle handle = lock(name, options);
        T result;
        try (LockContext.Scope scope = LockContext.enter(handle)) {
            result = action.get();
        }
        catch (Throwable failure) {
            LeaseLostException lost = ScopeInterruption.releaseAfterFailure(List.of(handle), handle::unlock, failure);
            if (lost != null) {
                throw lost;
            }
            throw failure;
        }
        handle.unlock();
        return result;
    }

    /**
     * Runs the action in a scope of the lock (see {@link LockContext}) and releases it afterwards.
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
     * Takes several locks, all or none, within {@code options.waitTime()} for all of them together (e.g. the two
     * accounts of a transfer). The names are taken in one global order (sorted, duplicates removed), so callers
     * asking for {@code {a, b}} and {@code {b, a}} never deadlock; each waits only for what is left of the wait
     * time. On a timeout or an error every lock already taken is released. Each lock has its own lease and fencing
     * token; names already held in a scope of this call chain are re-entered.
     *
     * @param names the lock names; at least one, none null or empty
     * @param options wait (for all together), lease and type (for each)
     * @return the locks, or empty when not all were taken in time
     * @throws IllegalArgumentException for no names, or a null or empty name
     * @throws LockUnavailableException when the store cannot be reached (nothing stays held)
     */
    default Optional<MultiLockHandle> tryLockAll(Collection<String> names, LockOptions options) {
        return LockGroup.tryLock(this, names, options);
    }

    /**
     * {@link #tryLockAll} that throws when not all locks were taken in time.
     *
     * @param names the lock names
     * @param options wait (for all together), lease and type (for each)
     * @return the locks
     * @throws LockTimeoutException when the wait time elapses (nothing stays held)
     * @throws LockUnavailableException when the store cannot be reached (nothing stays held)
     */
    default MultiLockHandle lockAll(Collection<String> names, LockOptions options) {
        return tryLockAll(names, options).orElseThrow(() -> new LockTimeoutException(
                "Locks " + LockGroup.order(names) + " not all acquired within "
                        + describeWait(effectiveWait(options))
                        + LockTimeoutException.heldBy(this, LockGroup.order(names)),
                LockGroup.order(names), effectiveWait(options).orElse(null), null));
    }

    /**
     * Runs the action in a scope of all the locks ({@link LockContext#all()}) and releases them afterwards.
     *
     * @param names the lock names
     * @param options wait (for all together), lease and type (for each)
     * @param action the work
     * @param <T> the result type
     * @return what the action returned
     * @throws LockTimeoutException when the wait time elapses (the action did not run)
     * @throws LockUnavailableException when the store cannot be reached (the action did not run)
     */
    default <T> T executeWithLocks(Collection<String> names, LockOptions options, Supplier<T> action) {
        MultiLockHandle handles = lockAll(names, options);
        T result;
        try (LockContext.Scope scope = LockContext.enter(handles)) {
            result = action.get();
        }
        catch (Throwable failure) {
            LeaseLostException lost = ScopeInterruption.releaseAfterFailure(handles.locks(), handles::unlock, failure);
            if (lost != null) {
                throw lost;
            }
            throw failure;
        }
        handles.unlock();
        return result;
    }

    /**
     * Who holds the lock now, whichever instance holds it: read from the store (not from this instance's memory),
     * with the holder's {@code distlock.instance-id}, its fencing token, its lease remaining and, where the store
     * keeps a line, how many wait. Bounded by {@code distlock.command-timeout} like every store call.
     *
     * @param name the lock name
     * @return the holder, or empty when the lock is free
     * @throws LockUnavailableException when the store does not answer in time (fail closed: never "free" then)
     * @throws UnsupportedOperationException for a lock service without the engine (the default)
     */
    default Optional<LockInfo> describe(String name) {
        throw new UnsupportedOperationException(getClass().getName() + " cannot describe locks");
    }

    /**
     * Campaigns for the leadership of a group: this instance leads while it holds the group's lock (named
     * {@code "leader:" + group}, a watchdog lease of {@code distlock.lease-time}), and campaigns again by itself
     * after it lost or gave up the leadership, until the returned campaign is closed. The listener is told
     * {@code revoked} no later than the moment the lease can have expired, so there are never two leaders that
     * both believe they lead; the lease's fencing token fences the leader's writes. One thread per campaign, which
     * waits for the lock as any caller does (woken by the store's release notifications).
     *
     * @param group the group, not blank
     * @param listener told when this instance becomes and stops being the leader
     * @return the campaign, started
     * @throws IllegalArgumentException for a blank group
     * @throws UnsupportedOperationException for a lock service without the engine (the default)
     */
    default Leadership campaign(String group, LeadershipListener listener) {
        throw new UnsupportedOperationException(getClass().getName() + " does not run leadership campaigns");
    }

    /**
     * The named lock as a {@link Lock}, for code written against that interface. Unlike a {@link LockHandle} it is
     * owned by the thread that locked it, and reentrant for that thread (see {@link ThreadOwnedLock}: interrupts,
     * lost leases, a lease time per acquisition). Share one instance between the threads of this JVM: two instances
     * of one name are two acquisitions, and a thread holding one waits for the other.
     *
     * @param name the lock name
     * @param options the wait time is ignored (each method has its own), the rest applies to every acquisition
     * @return a new lock on the name
     */
    default ThreadOwnedLock asLock(String name, LockOptions options) {
        return new ThreadOwnedLock(this, name, options);
    }

    /**
     * {@link #asLock(String, LockOptions)} with the configured defaults.
     *
     * @param name the lock name
     * @return a new lock on the name
     */
    default ThreadOwnedLock asLock(String name) {
        return asLock(name, LockOptions.defaults());
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

    /**
     * The wait a call whose options leave it unset gets ({@code distlock.wait-time}), so that a timeout can say how
     * long it waited.
     *
     * @return the default wait, or empty when this service does not know it (the default implementation)
     */
    default Optional<Duration> defaultWaitTime() {
        return Optional.empty();
    }

    /**
     * @param options the options of a call
     * @return the wait that call gets: the options' own, else {@link #defaultWaitTime()}
     */
    private Optional<Duration> effectiveWait(LockOptions options) {
        return options.waitTime().or(this::defaultWaitTime);
    }

    /**
     * @param wait an effective wait, if known
     * @return it for a message: {@code "3000 ms"}, or the property that sets it when unknown
     */
    private static String describeWait(Optional<Duration> wait) {
        return wait.map(LockException::millis).orElse("the configured distlock.wait-time");
    }
}
