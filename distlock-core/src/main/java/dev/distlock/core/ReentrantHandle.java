package dev.distlock.core;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.LockHandle;

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
