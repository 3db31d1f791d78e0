package dev.distlock.annotation;

import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LeaseLostException;
import dev.distlock.MultiLockHandle;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The lock of one subscription of a reactive method: whichever comes second of the grant ({@link #fill}) and the
 * end of the subscription ({@link #close}) releases the lock. A subscription cancelled while its lock is being
 * granted thus never leaves the lock held (and renewed by the watchdog) for nobody.
 */
final class LockSlot {

    private static final Logger logger = LoggerFactory.getLogger(LockSlot.class);

    private static final Object CLOSED = new Object();

    /** {@code null} while the lock is being taken, then the handle, or {@link #CLOSED}. */
    private final AtomicReference<@Nullable Object> state = new AtomicReference<>();

    private final Executor releases;

    /**
     * @param releases where a late grant is released: not on the acquiring thread, whose cancelled task may still
     *        be interrupted at any moment (Reactor disposes a task that was being scheduled when it is scheduled),
     *        which would cut the release's wait for the store short
     */
    LockSlot(Executor releases) {
        this.releases = releases;
    }

    /**
     * Called by the thread that took the lock.
     *
     * @param handle the locks, or {@code null} when they were not taken (skipped)
     * @return the handle for the subscription, or {@code null} when the subscription already ended: the lock is
     *         released then
     */
    @Nullable MultiLockHandle fill(@Nullable MultiLockHandle handle) {
        if (handle == null || state.compareAndSet(null, handle)) {
            return handle;
        }
        try {
            releases.execute(() -> release(handle));
        }
        catch (RejectedExecutionException ex) {
            release(handle);
        }
        return null;
    }

    /** The subscription ended: releases the lock if it was granted, or makes a later grant release itself. */
    void close() {
        Object previous = state.getAndSet(CLOSED);
        if (previous instanceof MultiLockHandle handle) {
            handle.unlock();
        }
    }

    /** The subscription ended with the loss of a lease: the release's report of that loss is not thrown again. */
    void closeAfterLoss() {
        try {
            close();
        }
        catch (LeaseLostException ex) {
            logger.debug("Released {} after the loss that stopped its subscription", state.get(), ex);
        }
    }

    private static void release(MultiLockHandle handle) {
        try {
            handle.unlock();
        }
        catch (RuntimeException ex) {
            logger.warn("Releasing {}, granted after its subscription was cancelled, failed; its lease will "
                    + "expire", handle.locks(), ex);
        }
    }
}
