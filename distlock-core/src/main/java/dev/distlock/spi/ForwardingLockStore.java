package dev.distlock.spi;

import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletionStage;

import dev.distlock.LockInfo;

/**
 * A {@link LockStore} that forwards every call to another: the base for stores that add a feature by wrapping one
 * (counting calls, injecting faults). It forwards the {@link HandsOver} capability too: the engine starts its
 * hand-overs, which reach the delegate when it hands over and are never told otherwise.
 */
public class ForwardingLockStore implements LockStore, HandsOver {

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
    public StoreTraits traits() {
        return delegate.traits();
    }

    @Override
    public void startHandOvers(HandOverEvents events) {
        if (delegate instanceof HandsOver handsOver) {
            handsOver.startHandOvers(events);
        }
    }

    /**
     * The delegate's confirmation; for a delegate that does not hand over (a test store whose hand-overs a test
     * tells by hand), a last try through {@link #attempt}.
     */
    @Override
    public CompletionStage<Attempt> confirm(LockRequest request) {
        return delegate instanceof HandsOver handsOver ? handsOver.confirm(request) : attempt(request, Waiting.LAST_TRY);
    }

    @Override
    public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
        return delegate.attempt(request, waiting);
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
    public CompletionStage<Optional<LockInfo>> describe(String name) {
        return delegate.describe(name);
    }

    @Override
    public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
        return delegate.renew(leases);
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
    public void close() {
        delegate.close();
    }
}
