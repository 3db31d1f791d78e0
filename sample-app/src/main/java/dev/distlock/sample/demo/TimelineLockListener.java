package dev.distlock.sample.demo;

import dev.distlock.LockHandle;
import dev.distlock.listener.AcquireEvent;
import dev.distlock.listener.AcquireResult;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.ReleaseResult;

import org.springframework.stereotype.Component;

/**
 * Tells the sample's {@link LockTimeline} when the lock service granted a lock and when its release returned, so
 * that each hold has the lock's own times besides its body's: the lock is held from the grant, through the
 * transaction's begin, the body and the commit, to the release. The lock service calls its listeners on the
 * caller's thread for both, which is where the timeline keeps the call being tracked.
 * <p>
 * A clock read and a thread-local look-up per event, no I/O: listeners run on the lock's hot path.
 */
@Component
public class TimelineLockListener implements LockListener {

    private final LockTimeline timeline;

    /**
     * @param timeline where the times go
     */
    public TimelineLockListener(LockTimeline timeline) {
        this.timeline = timeline;
    }

    @Override
    public void acquireFinished(AcquireEvent event) {
        if (event.result() == AcquireResult.ACQUIRED) {
            timeline.lockGranted(event.name());
        }
    }

    @Override
    public void released(LockHandle handle, ReleaseResult result) {
        timeline.lockReleased(handle.name());
    }
}
