package dev.distlock.redis;

import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.LockHandle;
import dev.distlock.listener.LockListener;

/** A node's listener that keeps when it was first told a lease was lost or expired, for partition tests. */
final class LossClock implements LockListener {

    private final AtomicLong lostAt = new AtomicLong();

    @Override
    public void leaseLost(LockHandle handle) {
        lostAt.compareAndSet(0, System.nanoTime());
    }

    @Override
    public void expired(LockHandle handle) {
        lostAt.compareAndSet(0, System.nanoTime());
    }

    /** @return the {@link System#nanoTime()} of the first report, 0 before any */
    long get() {
        return lostAt.get();
    }
}
