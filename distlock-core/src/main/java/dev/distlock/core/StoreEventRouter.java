package dev.distlock.core;

import java.time.Duration;

import dev.distlock.spi.HandOverEvents;
import dev.distlock.spi.StoreEvents;
import org.jspecify.annotations.Nullable;

/**
 * Routes what a store tells as it happens: releases and store hand-overs wake this JVM's waiters
 * ({@link LocalQueues}); a lease the store knows is gone ends as lost ({@link LeaseEndings#lost}), whichever thread
 * holds it by then.
 */
final class StoreEventRouter implements StoreEvents, HandOverEvents {

    private final LocalQueues queues;

    private final HeldLeases held;

    private final LeaseEndings endings;

    StoreEventRouter(LocalQueues queues, HeldLeases held, LeaseEndings endings) {
        this.queues = queues;
        this.held = held;
        this.endings = endings;
    }

    @Override
    public void released(String name, @Nullable String next) {
        queues.released(name, next, 0);
    }

    @Override
    public void kept(String name, String keptFor, Duration window) {
        queues.released(name, keptFor, window.toMillis());
    }

    @Override
    public void handedOver(String name, String handedTo, long fencingToken, long handedAtMicros, Duration window) {
        queues.handedOver(name, new LocalQueues.HandOver(handedTo, fencingToken, handedAtMicros, window.toMillis()));
    }

    @Override
    public void leaseLost(String ownerToken) {
        held.byOwner(ownerToken).ifPresent(endings::lost);
    }
}
