package dev.distlock.core;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.LockContext;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockType;
import org.jspecify.annotations.Nullable;

/**
 * A reentrant hold: the call chain held the lock in a scope, so no store round trip was made. Releasing it drops
 * one hold of the outermost {@link LeaseHandle}.
 */
final class ReentrantHandle implements LockHandle {

    private final LeaseHandle root;

    private final AtomicBoolean unlocked = new AtomicBoolean();

    ReentrantHandle(LeaseHandle root) {
        this.root = root;
    }

    LeaseHandle root() {
        return root;
    }

    /**
     * @param issuer the lifecycle of the service asked: only its own scopes count
     * @return a reentrant hold when this call chain holds the name in a scope of that service, else {@code null}
     *         (also when the scope's lease can no longer be counted on: the caller then waits like anyone else)
     */
    static @Nullable LockHandle reenter(String name, LockType type, LeaseLifecycle issuer) {
        Optional<LockHandle> scope = LockContext.held(name, handle -> rootOf(handle, issuer) != null);
        if (scope.isEmpty()) {
            return null;
        }
        LeaseHandle root = rootOf(scope.get(), issuer);
        if (root == null) {
            return null;
        }
        if (root.request().type() == LockType.READ && type != LockType.READ) {
            // Two readers upgrading at once would wait for each other forever.
            throw new LockException("Lock '" + name + "' is held for READ by this call chain and cannot be "
                    + "upgraded to an exclusive lock; release the read lock first");
        }
        return root.tryEnter();
    }

    private static @Nullable LeaseHandle rootOf(LockHandle handle, LeaseLifecycle issuer) {
        LeaseHandle root = handle instanceof ReentrantHandle r ? r.root : handle instanceof LeaseHandle h ? h : null;
        return root != null && root.issuer() == issuer ? root : null;
    }

    @Override
    public String name() {
        return root.name();
    }

    @Override
    public long fencingToken() {
        return root.fencingToken();
    }

    @Override
    public boolean isHeld() {
        return !unlocked.get() && root.isLockHeld();
    }

    @Override
    public Duration remaining() {
        return isHeld() ? root.leaseRemaining(System.nanoTime()) : Duration.ZERO;
    }

    /** A reentrant hold keeps the policy of the acquisition it re-enters: the lease is that one's. */
    @Override
    public dev.distlock.OnLeaseLost onLeaseLost() {
        return root.onLeaseLost();
    }

    @Override
    public LossWatch whenLost(Runnable action) {
        return root.whenLost(action);
    }

    @Override
    public void unlock() {
        if (unlocked.compareAndSet(false, true)) {
            root.releaseHold();
        }
    }

    @Override
    public String toString() {
        return "LockHandle[" + root.name() + ", fencingToken=" + root.fencingToken() + ", reentrant]";
    }
}
