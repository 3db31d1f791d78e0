package dev.distlock.redis;

import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.LockHandle;

/**
 * A reentrant acquisition: the call chain already held the lock, so no Redis round trip was made. Releasing it
 * drops one hold of the outermost {@link RedisLockHandle}.
 */
final class ReentrantLockHandle implements LockHandle {

    final RedisLockHandle root;

    private final AtomicBoolean unlocked = new AtomicBoolean();

    private Runnable unbind = () -> {
    };

    ReentrantLockHandle(RedisLockHandle root) {
        this.root = root;
    }

    void bindTo(Runnable unbind) {
        this.unbind = unbind;
    }

    @Override
    public String name() {
        return root.name;
    }

    @Override
    public long fencingToken() {
        return root.fencingToken;
    }

    @Override
    public boolean isHeld() {
        return !unlocked.get() && root.isLockHeld();
    }

    @Override
    public void unlock() {
        if (unlocked.compareAndSet(false, true)) {
            unbind.run();
            root.releaseHold();
        }
    }

    @Override
    public String toString() {
        return "LockHandle[" + root.name + ", fencingToken=" + root.fencingToken + ", reentrant]";
    }
}
