package dev.distlock;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import java.util.concurrent.atomic.AtomicBoolean;

import org.jspecify.annotations.Nullable;

/**
 * Takes several locks all or none, in one global order, and releases them together: what
 * {@link LockService#tryLockAll} does for every lock service.
 */
final class LockGroup implements MultiLockHandle {

    private final List<LockHandle> locks;

    private final AtomicBoolean released = new AtomicBoolean();

    private LockGroup(List<LockHandle> locks) {
        this.locks = locks;
    }

    /**
     * Takes the locks in sorted order, each waiting only for what is left of the wait time; on a timeout or an
     * error, everything taken so far is released (and the error thrown).
     *
     * @param service the lock service
     * @param names the names; duplicates count once
     * @param options wait, lease and type, for each lock; the wait time is for all of them together
     * @return the locks, or empty when not all were taken in time
     * @throws IllegalArgumentException for no names, or a null or empty name
     */
    static Optional<MultiLockHandle> tryLock(LockService service, Collection<String> names, LockOptions options) {
        if (names != null && names.size() == 1) {
            // The annotation's usual case, on the lock path: one lock, its own wait, no ordering to do.
            String name = names.iterator().next();
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("Lock names must not contain a null or empty name: " + names);
            }
            return service.tryLock(name, options).map(lock -> new LockGroup(List.of(lock)));
        }
        List<String> ordered = order(names);
        Duration wait = options.waitTime().orElse(null);
        long deadline = (wait != null) ? System.nanoTime() + wait.toNanos() : 0;
        List<LockHandle> taken = new ArrayList<>(ordered.size());
        try {
            for (String name : ordered) {
                LockOptions each = (wait != null)
                        ? options.withWaitTime(Duration.ofNanos(Math.max(0, deadline - System.nanoTime())))
                        : options;
                Optional<LockHandle> lock = service.tryLock(name, each);
                if (lock.isEmpty()) {
                    RuntimeException releaseFailed = releaseAll(taken, null);
                    if (releaseFailed != null) {
                        throw releaseFailed;
                    }
                    return Optional.empty();
                }
                taken.add(lock.get());
            }
        }
        catch (RuntimeException | Error ex) {
            releaseAll(taken, ex);
            throw ex;
        }
        return Optional.of(new LockGroup(List.copyOf(taken)));
    }

    /**
     * @param names the names asked for
     * @return the distinct names, sorted: the one global order
     */
    static List<String> order(Collection<String> names) {
        if (names == null || names.isEmpty()) {
            throw new IllegalArgumentException("Lock names must not be empty");
        }
        TreeSet<String> ordered = new TreeSet<>();
        for (String name : names) {
            if (name == null || name.isEmpty()) {
                throw new IllegalArgumentException("Lock names must not contain a null or empty name: " + names);
            }
            ordered.add(name);
        }
        return List.copyOf(ordered);
    }

    @Override
    public List<LockHandle> locks() {
        return locks;
    }

    @Override
    public boolean isHeld() {
        return !released.get() && locks.stream().allMatch(LockHandle::isHeld);
    }

    @Override
    public void unlock() {
        if (released.compareAndSet(false, true)) {
            RuntimeException first = releaseAll(locks, null);
            if (first != null) {
                throw first;
            }
        }
    }

    /**
     * Releases the last taken first, every one of them even when some fail.
     *
     * @param failure the failure that ends the group, to which release failures are added; {@code null} if none
     * @return the first release failure when there is no {@code failure} (the rest suppressed in it), else null
     */
    private static @Nullable RuntimeException releaseAll(List<LockHandle> taken, @Nullable Throwable failure) {
        RuntimeException first = null;
        for (int i = taken.size() - 1; i >= 0; i--) {
            try {
                taken.get(i).unlock();
            }
            catch (RuntimeException ex) {
                if (failure != null) {
                    failure.addSuppressed(ex);
                }
                else if (first == null) {
                    first = ex;
                }
                else {
                    first.addSuppressed(ex);
                }
            }
        }
        return first;
    }

    @Override
    public String toString() {
        return "MultiLockHandle" + locks;
    }
}
