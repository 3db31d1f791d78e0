package dev.distlock.spi;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletionStage;


/**
 * A {@link LockStore} that forwards every call to another: the base for stores that add a feature by wrapping one
 * (counting calls, injecting faults).
 */
public class ForwardingLockStore implements LockStore {

    private final LockStore delegate;

    /**
     * @param delegate the store the calls go to
     */
    public ForwardingLockStore(LockStore delegate) {
        this.delegate = delegate;
    }

    @Override
    public void start(StoreEvents events) {
        delegate.start(events);
    }

    @Override
    public CompletionStage<Attempt> attempt(LockRequest request, long remainingWaitMillis, boolean retry) {
        return delegate.attempt(request, remainingWaitMillis, retry);
    }

    @Override
    public CompletionStage<Void> cancel(LockRequest request) {
        return delegate.cancel(request);
    }

    @Override
    public CompletionStage<ReleaseResult> release(Lease lease) {
        return delegate.release(lease);
    }

    @Override
    public CompletionStage<Boolean> forceRelease(String name) {
        return delegate.forceRelease(name);
    }

    @Override
    public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
        return delegate.renew(leases);
    }

    @Override
    public boolean leasesExpire() {
        return delegate.leasesExpire();
    }

    @Override
    public boolean supportsPermits() {
        return delegate.supportsPermits();
    }

    @Override
    public boolean tokensFollowClock() {
        return delegate.tokensFollowClock();
    }

    @Override
    public boolean isHeld(Lease lease) {
        return delegate.isHeld(lease);
    }

    @Override
    public CompletionStage<StoreHealth> health() {
        return delegate.health();
    }

    @Override
    public Duration answerAllowance() {
        return delegate.answerAllowance();
    }

    @Override
    public void close() {
        delegate.close();
    }
}
