package dev.distlock.annotation;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.Consumer;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.MultiLockHandle;
import dev.distlock.OnLeaseLost;

/**
 * Stops the work of an annotated method whose lease is lost, for the locks that ask for it
 * ({@link OnLeaseLost#INTERRUPT}): the stop (completing a future, cancelling a subscription) is handed to the
 * release pool, because the loss is found on a thread of the engine or the store that must not run the
 * application's callbacks.
 */
final class LossStops {

    private final List<LockHandle.LossWatch> watches;

    private LossStops(List<LockHandle.LossWatch> watches) {
        this.watches = watches;
    }

    /**
     * @param locks the method's locks
     * @param stop stops the work, told the exception the caller gets; runs at most once, on {@code executor}
     * @return the watches (none when no lock asks to stop the work)
     */
    static LossStops watch(MultiLockHandle locks, Executor executor, Consumer<LeaseLostException> stop) {
        List<LockHandle.LossWatch> watches = new ArrayList<>(1);
        AtomicBoolean stopped = new AtomicBoolean();
        for (LockHandle lock : locks.locks()) {
            if (lock.onLeaseLost() == OnLeaseLost.INTERRUPT) {
                watches.add(lock.whenLost(() -> {
                    if (stopped.compareAndSet(false, true)) {
                        Runnable task = () -> stop.accept(lost(lock));
                        try {
                            executor.execute(task);
                        }
                        catch (RejectedExecutionException ex) {
                            task.run();
                        }
                    }
                }));
            }
        }
        return new LossStops(watches);
    }

    /** @return whether a lock asks to stop the work at a loss: only then are watches worth making */
    static boolean wanted(MultiLockHandle locks) {
        for (LockHandle lock : locks.locks()) {
            if (lock.onLeaseLost() == OnLeaseLost.INTERRUPT) {
                return true;
            }
        }
        return false;
    }

    /** The work ended: a loss from now on stops nothing. */
    void end() {
        for (LockHandle.LossWatch watch : watches) {
            watch.end();
        }
    }

    private static LeaseLostException lost(LockHandle lock) {
        return new LeaseLostException("The lease of lock '" + lock.name() + "' (fencing token "
                + lock.fencingToken() + ") was lost while it was held; the work was stopped");
    }
}
