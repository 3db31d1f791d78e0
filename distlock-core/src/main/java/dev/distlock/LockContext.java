package dev.distlock;

import java.util.ArrayDeque;
import java.util.Iterator;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The lock scopes of the current call chain (thread), innermost last.
 * <p>
 * A scope is where a lock is held for a block of work: inside {@link LockService#executeWithLock} /
 * {@link LockService#runWithLock} and inside a {@code @DistributedLock} method. There,
 * {@code LockContext.current()} is the handle of the innermost lock (e.g. to read its
 * {@link LockHandle#fencingToken() fencing token}), and asking for the same lock name again — any
 * {@link LockService} call or a nested annotated method — is granted at once without a store round trip.
 * <p>
 * A handle returned by {@link LockService#lock} / {@link LockService#tryLock} outside a scope is an acquisition,
 * not a scope: it is bound to no thread and may be released from any thread, so it never makes the acquiring
 * thread a second holder of the lock.
 */
public final class LockContext {

    // Scopes are opened and closed by one thread, in nesting order, so no concurrent structure is needed.
    private static final ThreadLocal<ArrayDeque<LockHandle>> SCOPES = ThreadLocal.withInitial(ArrayDeque::new);

    private LockContext() {
    }

    /** @return the handle of the innermost lock scope of this call chain, if any */
    public static Optional<LockHandle> current() {
        return Optional.ofNullable(SCOPES.get().peekLast());
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
        ArrayDeque<LockHandle> scopes = SCOPES.get();
        scopes.addLast(handle);
        return new Scope(scopes, handle);
    }

    /**
     * Finds the innermost scope of this call chain that holds the lock name. For lock service implementations.
     *
     * @param name the lock name
     * @param issuedHere tells which handles the asking lock service issued (several services may share a thread)
     * @return the scope's handle, if any
     */
    public static Optional<LockHandle> held(String name, Predicate<LockHandle> issuedHere) {
        ArrayDeque<LockHandle> scopes = SCOPES.get();
        if (scopes.isEmpty()) {
            return Optional.empty();
        }
        Iterator<LockHandle> it = scopes.descendingIterator();
        while (it.hasNext()) {
            LockHandle handle = it.next();
            if (handle.name().equals(name) && issuedHere.test(handle)) {
                return Optional.of(handle);
            }
        }
        return Optional.empty();
    }

    /**
     * An open lock scope; closing it ends the scope (not the lock: release the handle for that).
     */
    public static final class Scope implements AutoCloseable {

        private final ArrayDeque<LockHandle> scopes;

        private final LockHandle handle;

        private final Thread owner = Thread.currentThread();

        private boolean closed;

        private Scope(ArrayDeque<LockHandle> scopes, LockHandle handle) {
            this.scopes = scopes;
            this.handle = handle;
        }

        /** @return the scope's handle */
        public LockHandle handle() {
            return handle;
        }

        /**
         * Ends the scope. Idempotent.
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
                scopes.removeLastOccurrence(handle);
            }
        }
    }
}
