package dev.distlock.fencing;

import dev.distlock.LockContext;
import dev.distlock.LockHandle;

/**
 * The fencing token of the current call chain's lock scope, for guarded writes that are not given one: inside
 * {@code @DistributedLock}, {@code executeWithLock} or {@code runWithLock} a write needs no token argument.
 * <p>
 * The token must be the one of the lock that protects the resource written. {@link #current()} is the innermost
 * scope's (first) lock; where scopes nest or a scope holds several locks (a transfer between two accounts), name
 * the lock with {@link #current(String)}.
 */
public final class FencingTokens {

    private FencingTokens() {
    }

    /**
     * @return the fencing token of the innermost lock scope of this call chain
     * @throws IllegalStateException outside any lock scope, saying how to get one or pass a token
     */
    public static long current() {
        return LockContext.current().map(LockHandle::fencingToken).orElseThrow(() -> new IllegalStateException(
                "No lock scope on this thread, so there is no fencing token to write with: call the guarded write "
                        + "inside a @DistributedLock method, executeWithLock or runWithLock, or pass the token of "
                        + "your lock (LockHandle.fencingToken())"));
    }

    /**
     * @param lockName the name of the lock that protects the resource (e.g. {@code "account:1"})
     * @return the fencing token of that lock in the innermost lock scope of this call chain that holds it
     * @throws IllegalStateException when no scope of this call chain holds that lock
     */
    public static long current(String lockName) {
        return LockContext.held(lockName, handle -> true).map(LockHandle::fencingToken)
                .orElseThrow(() -> new IllegalStateException("No lock scope on this thread holds '" + lockName
                        + "', so there is no fencing token to write with: call the guarded write inside a scope "
                        + "of that lock (@DistributedLock, executeWithLock, executeWithLocks) or pass its token "
                        + "(LockHandle.fencingToken())"));
    }
}
