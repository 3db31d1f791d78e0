package dev.distlock.core;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockHandle;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The actions that stop a holder's work when its lease is found lost ({@link LockHandle#whenLost}). Each runs at
 * most once, and never after its watch ended: a watch is one small state machine (watching, then either running and
 * ran, or ended) changed by compare-and-set, so a loss found while the work is leaving its scope either stops the
 * work before the scope ends or not at all, never the thread's next task. Nothing here waits on the store.
 */
final class LossWatches {

    private static final Logger log = LoggerFactory.getLogger(LossWatches.class);

    private final List<Watch> watches = new CopyOnWriteArrayList<>();

    /** Set before the watches are told, read after one is added: a loss and a new watch always meet. */
    private volatile boolean lost;

    LockHandle.LossWatch add(Runnable action) {
        Watch watch = new Watch(action);
        watches.add(watch);
        if (lost) {
            watch.run(); // the loss was told before the watch was there
        }
        return watch;
    }

    /** The lease was found lost: runs every watch not ended. */
    void lost() {
        lost = true;
        for (Watch watch : watches) {
            watch.run();
        }
    }

    private final class Watch implements LockHandle.LossWatch {

        private static final int WATCHING = 0;

        private static final int RUNNING = 1;

        private static final int RAN = 2;

        private static final int ENDED = 3;

        private final AtomicInteger state = new AtomicInteger(WATCHING);

        private final Runnable action;

        /** The thread running the action: one that ends the watch from inside it must not wait for itself. */
        private volatile @Nullable Thread runner;

        Watch(Runnable action) {
            this.action = action;
        }

        void run() {
            if (!state.compareAndSet(WATCHING, RUNNING)) {
                return;
            }
            runner = Thread.currentThread();
            try {
                action.run();
            }
            catch (RuntimeException ex) {
                log.warn("An action stopping the work of a lost lease failed", ex);
            }
            finally {
                state.set(RAN);
            }
        }

        @Override
        public boolean end() {
            watches.remove(this);
            if (state.compareAndSet(WATCHING, ENDED)) {
                return false;
            }
            // Running: an action is quick (an interrupt, a hand-over to an executor), and what it stops must be
            // stopped before the caller goes on, so wait for it here rather than let it reach the next task.
            while (state.get() == RUNNING && runner != Thread.currentThread()) {
                Thread.onSpinWait();
            }
            return true;
        }
    }
}
