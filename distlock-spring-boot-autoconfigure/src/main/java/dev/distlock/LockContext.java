package dev.distlock;

import java.util.Deque;
import java.util.Iterator;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedDeque;
import java.util.function.Predicate;

/**
 * The locks held by the current call chain (thread), innermost last.
 * <p>
 * Inside a method annotated with {@code @DistributedLock}, {@code LockContext.current()} is the handle of that
 * method's lock, e.g. to read its {@link LockHandle#fencingToken() fencing token}. The lock service binds every
 * handle it hands out to the acquiring thread and unbinds it on release, from whatever thread that happens; this
 * is also what makes a second request for the same lock in the same call chain reentrant.
 */
public final class LockContext {

    // Concurrent because a handle may be released (and so unbound) from another thread than the one it is bound to.
    private static final ThreadLocal<Deque<LockHandle>> HELD = ThreadLocal.withInitial(ConcurrentLinkedDeque::new);

    private LockContext() {
    }

    /** @return the innermost lock held by this call chain, if any */
    public static Optional<LockHandle> current() {
        return Optional.ofNullable(HELD.get().peekLast());
    }

    /**
     * Finds the innermost handle this call chain holds for the lock name. For lock service implementations.
     *
     * @param name the lock name
     * @param issuedHere tells which handles the asking lock service issued (several services may share a thread)
     * @return the held handle, if any
     */
    public static Optional<LockHandle> held(String name, Predicate<LockHandle> issuedHere) {
        Iterator<LockHandle> it = HELD.get().descendingIterator();
        while (it.hasNext()) {
            LockHandle handle = it.next();
            if (handle.name().equals(name) && issuedHere.test(handle) && handle.isHeld()) {
                return Optional.of(handle);
            }
        }
        return Optional.empty();
    }

    /**
     * Binds the handle to this call chain. For lock service implementations.
     *
     * @param handle the newly acquired handle
     * @return the action that unbinds it again; idempotent and callable from any thread
     */
    public static Runnable bind(LockHandle handle) {
        Deque<LockHandle> held = HELD.get();
        held.addLast(handle);
        return () -> held.removeLastOccurrence(handle);
    }

    /**
     * Unbinds the handle from this call chain while it stays held, e.g. when a method returned a
     * {@code CompletableFuture} that keeps the lock until it completes: the thread goes on to other work that must
     * not see the lock as its own.
     *
     * @param handle the handle
     */
    public static void detach(LockHandle handle) {
        HELD.get().removeLastOccurrence(handle);
    }
}
