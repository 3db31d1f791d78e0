package dev.distlock.test.support;

import dev.distlock.spi.Waiting;
import java.util.List;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.spi.Attempt;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.ReleaseResult;
import dev.distlock.spi.RenewalResult;

/**
 * A {@link LockStore} that counts the calls made to the store it wraps, so that tests can check how many round
 * trips an operation costs (e.g. none for a reentrant acquisition) without looking into the store.
 */
public final class CountingLockStore extends ForwardingLockStore {

    private final AtomicLong attempts = new AtomicLong();

    private final AtomicLong releases = new AtomicLong();

    private final AtomicLong renewals = new AtomicLong();

    private final AtomicLong cancels = new AtomicLong();

    /**
     * @param delegate the store to count calls to
     */
    public CountingLockStore(LockStore delegate) {
        super(delegate);
    }

    /** @return attempts made so far */
    public long attempts() {
        return attempts.get();
    }

    /** @return releases made so far */
    public long releases() {
        return releases.get();
    }

    /** @return renewal calls (batches) made so far */
    public long renewals() {
        return renewals.get();
    }

    /** @return cancellations made so far */
    public long cancels() {
        return cancels.get();
    }

    @Override
    public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
        attempts.incrementAndGet();
        return super.attempt(request, waiting);
    }

    @Override
    public CompletionStage<Void> cancel(LockRequest request) {
        cancels.incrementAndGet();
        return super.cancel(request);
    }

    @Override
    public CompletionStage<ReleaseResult> release(Lease lease) {
        releases.incrementAndGet();
        return super.release(lease);
    }

    @Override
    public CompletionStage<List<RenewalResult>> renew(List<? extends Lease> leases) {
        renewals.incrementAndGet();
        return super.renew(leases);
    }
}
