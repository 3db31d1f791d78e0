package dev.distlock;

import java.util.ArrayList;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Stops a blocking scope's work at a loss ({@link OnLeaseLost#INTERRUPT}): the thread that opened the scope is
 * interrupted when the lease of one of its locks is found lost, but only while the scope is open. Ending the watch
 * when the scope closes (which waits for an interrupt being delivered) is what keeps a loss found just after the
 * work returned from interrupting the thread's next task, on a pooled thread someone else's.
 * <p>
 * The interrupt the loss caused is taken back when the scope ends: the caller learns of the loss from the
 * {@link LeaseLostException} the release throws, and a thread going back to its pool must not carry a stray
 * interrupt into its next task. A thread interrupted already when the scope opened keeps its flag.
 */
final class ScopeInterruption {

    private final List<LockHandle.LossWatch> watches;

    private final boolean interruptedBefore;

    private ScopeInterruption(List<LockHandle.LossWatch> watches, boolean interruptedBefore) {
        this.watches = watches;
        this.interruptedBefore = interruptedBefore;
    }

    /**
     * @param locks the scope's locks
     * @return the watch of the scope, or {@code null} when none of its locks asks to be interrupted (nothing is
     *         allocated then: the lock path of the other policies pays nothing)
     */
    static @Nullable ScopeInterruption open(List<LockHandle> locks) {
        List<LockHandle> interrupting = null;
        for (LockHandle lock : locks) {
            if (lock.onLeaseLost() == OnLeaseLost.INTERRUPT) {
                if (interrupting == null) {
                    interrupting = new ArrayList<>(locks.size());
                }
                interrupting.add(lock);
            }
        }
        if (interrupting == null) {
            return null;
        }
        Thread worker = Thread.currentThread();
        boolean interruptedBefore = worker.isInterrupted();
        List<LockHandle.LossWatch> watches = new ArrayList<>(interrupting.size());
        for (LockHandle lock : interrupting) {
            watches.add(lock.whenLost(worker::interrupt));
        }
        return new ScopeInterruption(watches, interruptedBefore);
    }

    /** Ends the watches; called by the scope's thread when the scope closes. */
    void close() {
        boolean interrupted = false;
        for (LockHandle.LossWatch watch : watches) {
            interrupted |= watch.end();
        }
        if (interrupted && !interruptedBefore) {
            Thread.interrupted(); // the loss's interrupt: the LeaseLostException of the release reports it instead
        }
    }

    /**
     * Releases the locks of a scope whose work failed, and says what the caller gets: when a lock's policy is
     * {@link OnLeaseLost#INTERRUPT} and its release reports the loss, the {@link LeaseLostException} (the work's
     * failure suppressed in it: it is most likely how the interrupted work ended); otherwise the work's failure,
     * with what the release threw suppressed in it, as for the other policies.
     *
     * @return the exception to throw instead of the failure, or {@code null} to throw the failure
     */
    static @Nullable LeaseLostException releaseAfterFailure(List<LockHandle> locks, Runnable release,
            Throwable failure) {
        try {
            release.run();
            return null;
        }
        catch (LeaseLostException ex) {
            if (locks.stream().anyMatch(lock -> lock.onLeaseLost() == OnLeaseLost.INTERRUPT)) {
                ex.addSuppressed(failure);
                return ex;
            }
            failure.addSuppressed(ex);
            return null;
        }
        catch (RuntimeException ex) {
            failure.addSuppressed(ex);
            return null;
        }
    }
}
