package dev.distlock.listener;

import java.util.List;

import dev.distlock.LockHandle;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Calls several {@link LockListener}s in order and shields the lock engine from them: an exception thrown by a
 * listener is logged and swallowed, so metrics or tracing can never break locking.
 */
public final class CompositeLockListener implements LockListener {

    private static final Logger log = LoggerFactory.getLogger(CompositeLockListener.class);

    private final LockListener[] listeners;

    private CompositeLockListener(List<LockListener> listeners) {
        this.listeners = listeners.toArray(LockListener[]::new);
    }

    /**
     * @param listeners the listeners, in call order
     * @return a guarded listener calling all of them
     */
    public static LockListener of(List<? extends LockListener> listeners) {
        List<LockListener> flat = listeners.stream().filter(l -> l != null && l != NONE)
                .map(LockListener.class::cast).toList();
        return new CompositeLockListener(flat);
    }

    @Override
    public Acquisition acquireStarted(String name) {
        Acquisition[] acquisitions = new Acquisition[listeners.length];
        for (int i = 0; i < listeners.length; i++) {
            try {
                acquisitions[i] = listeners[i].acquireStarted(name);
            }
            catch (RuntimeException ex) {
                failed(listeners[i], ex);
            }
        }
        return event -> {
            for (int i = 0; i < acquisitions.length; i++) {
                Acquisition acquisition = acquisitions[i];
                try {
                    if (acquisition != null) {
                        acquisition.finished(event);
                    }
                }
                catch (RuntimeException ex) {
                    failed(listeners[i], ex);
                }
            }
        };
    }

    @Override
    public void released(LockHandle handle, ReleaseResult result) {
        for (LockListener listener : listeners) {
            try {
                listener.released(handle, result);
            }
            catch (RuntimeException ex) {
                failed(listener, ex);
            }
        }
    }

    @Override
    public void expired(LockHandle handle) {
        for (LockListener listener : listeners) {
            try {
                listener.expired(handle);
            }
            catch (RuntimeException ex) {
                failed(listener, ex);
            }
        }
    }

    @Override
    public void leaseLost(LockHandle handle) {
        for (LockListener listener : listeners) {
            try {
                listener.leaseLost(handle);
            }
            catch (RuntimeException ex) {
                failed(listener, ex);
            }
        }
    }

    @Override
    public void renewed(RenewalResult result, int locks) {
        for (LockListener listener : listeners) {
            try {
                listener.renewed(result, locks);
            }
            catch (RuntimeException ex) {
                failed(listener, ex);
            }
        }
    }

    @Override
    public void leadershipChanged(String group, boolean leader, boolean campaigning) {
        for (LockListener listener : listeners) {
            try {
                listener.leadershipChanged(group, leader, campaigning);
            }
            catch (RuntimeException ex) {
                failed(listener, ex);
            }
        }
    }

    private static void failed(LockListener listener, RuntimeException ex) {
        log.warn("Lock listener {} failed; locking goes on", listener, ex);
    }
}
