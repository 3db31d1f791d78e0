package dev.distlock.core;

import dev.distlock.spi.StoreEvents;
import org.jspecify.annotations.Nullable;

/**
 * Routes what a store tells as it happens: releases and store hand-overs wake this JVM's waiters
 * ({@link LocalQueues}); a lease the store knows is gone ends as lost ({@link LeaseEndings#lost}), whichever thread
 * holds it by then.
 */
final class StoreEventRouter implements StoreEvents {

    private final LocalQueues queues;

    private final HeldLeases held;

    private final LeaseEndings endings;

    StoreEventRouter(LocalQueues queues, HeldLeases held, LeaseEndings endings) {
        this.queues = queues;
        this.held = held;
        this.endings = endings;
    }

    @Override
    public void released(String name, @Nullable String handedTo, long handOverMillis) {
        queues.released(name, handedTo, handOverMillis);
    }

    @Override
    public void handedOver(String name, String handedTo, long fencingToken, long handedAtMicros,
            long handOverMillis) {
        queues.handedOver(name, new LocalQueues.HandOver(handedTo, fencingToken, handedAtMicros, handOverMillis));
    }

    @Override
    public void leaseLost(String ownerToken) {
        held.byOwner(ownerToken).ifPresent(endings::lost);
    }
}
