package dev.distlock;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.List;
import java.util.Optional;
import java.util.function.Predicate;

import org.jspecify.annotations.Nullable;

/**
 * The lock scopes of the current call chain (thread), innermost last.
 * <p>
 * A scope is where a lock is held for a block of work: inside {@link LockService#executeWithLock} /
 * {@link LockService#runWithLock} and inside a {@code @DistributedLock} method. There,
 * {@code LockContext.current()} is the handle of the innermost lock (e.g. to read its
 * {@link LockHandle#fencingToken() fencing token}), and asking for the same lock name again — any
 * {@link LockService} call or a nested annotated method — is granted at once without a store round trip. A scope
 * of several locks ({@link LockService#executeWithLocks}, or a {@code @DistributedLock} key that evaluates to a
 * collection) holds each of them so, {@code current()} is its first lock and {@link #all()} lists them all.
 * <p>
 * A handle returned by {@link LockService#lock} / {@link LockService#tryLock} outside a scope is an acquisition,
 * not a scope: it is bound to no thread and may be released from any thread, so it never makes the acquiring
 * thread a second holder of the lock.
 */
public final class LockContext {

    // Scopes are opened and closed by one thread, in nesting order, so no concurrent structure is needed. Each scope
    // is the list of its locks: one, or several taken together.
    private static final ThreadLocal<ArrayDeque<List<LockHandle>>> SCOPES = ThreadLocal.withInitial(ArrayDeque::new);

    private LockContext() {
    }

    /** @return the handle of the innermost lock scope of this call chain (its first lock), if any */
    public static Optional<LockHandle> current() {
        List<LockHandle> innermost = SCOPES.get().peekLast();
        return (innermost != null) ? Optional.of(innermost.get(0)) : Optional.empty();
    }

    /**
     * @return the locks of the innermost lock scope of this call chain in the order taken: one for a single lock,
     *         several for a scope of several locks; empty outside any scope
     */
    public static List<LockHandle> all() {
        List<LockHandle> innermost = SCOPES.get().peekLast();
        return (innermost != null) ? innermost : List.of();
    }

    /**
     * Opens a lock scope on this thread: until the returned scope is closed, {@link #current()} is this handle and
     * the lock service that issued it grants the same name again at once. Close it on the same thread, before the
     * handle is released ({@code try (LockHandle h = ...; LockContext.Scope s = LockContext.enter(h))}).
     *
     * @param handle a held lock
     * @return the scope
     */
    public static Scope enter(LockHandle handle) {
        return enter(List.of(handle));
    }

    /**
     * Opens a lock scope of several locks on this thread: until the returned scope is closed, {@link #all()} lists
     * them, {@link #current()} is the first, and each is granted again at once. Close it on the same thread, before
     * the locks are released.
     *
     * @param handles locks held together
     * @return the scope
     */
    public static Scope enter(MultiLockHandle handles) {
        return enter(handles.locks());
    }

    private static Scope enter(List<LockHandle> locks) {
        ArrayDeque<List<LockHandle>> scopes = SCOPES.get();
        scopes.addLast(locks);
        return new Scope(scopes, locks, ScopeInterruption.open(locks));
    }

    /**
     * Finds the innermost scope of this call chain that holds the lock name. For lock service implementations.
     *
     * @param name the lock name
     * @param issuedHere tells which handles the asking lock service issued (several services may share a thread)
     * @return the scope's handle of that name, if any
     */
    public static Optional<LockHandle> held(String name, Predicate<LockHandle> issuedHere) {
        ArrayDeque<List<LockHandle>> scopes = SCOPES.get();
        if (scopes.isEmpty()) {
            return Optional.empty();
        }
        Iterator<List<LockHandle>> it = scopes.descendingIterator();
        while (it.hasNext()) {
            for (LockHandle handle : it.next()) {
                if (handle.name().equals(name) && issuedHere.test(handle)) {
                    return Optional.of(handle);
                }
            }
        }
        return Optional.empty();
    }

    /**
     * An open lock scope; closing it ends the scope (not the locks: release the handles for that).
     */
    public static final class Scope implements AutoCloseable {

        private final ArrayDeque<List<LockHandle>> scopes;

        private final List<LockHandle> locks;

        private final Thread owner = Thread.currentThread();

        private boolean closed;

        /** Interrupts this thread at a loss while the scope is open; null unless a lock asks for it. */
        private final @Nullable ScopeInterruption interruption;

        private Scope(ArrayDeque<List<LockHandle>> scopes, List<LockHandle> locks,
                @Nullable ScopeInterruption interruption) {
            this.scopes = scopes;
            this.locks = locks;
            this.interruption = interruption;
        }

        /** @return the scope's handle (its first lock) */
        public LockHandle handle() {
            return locks.get(0);
        }

        /**
         * Ends the scope. Idempotent. From now on a lost lease no longer interrupts this thread; an interrupt one
         * caused is taken back (see {@link OnLeaseLost#INTERRUPT}).
         *
         * @throws IllegalStateException when called from another thread than the one that opened it
         */
        @Override
        public void close() {
            if (Thread.currentThread() != owner) {
                throw new IllegalStateException("A lock scope must be closed by the thread that opened it");
            }
            if (!closed) {
                closed = true;
                if (interruption != null) {
                    interruption.close();
                }
                // This scope's own list: another scope of equal locks (a re-entered publisher's) stays.
                Iterator<List<LockHandle>> it = scopes.descendingIterator();
                while (it.hasNext()) {
                    if (it.next() == locks) {
                        it.remove();
                        break;
                    }
                }
            }
        }
    }
}
