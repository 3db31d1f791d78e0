package dev.distlock.quorum;

import dev.distlock.spi.StoreEvents;
import org.jspecify.annotations.Nullable;

/**
 * What a quorum's node tells, passed on to the engine as the quorum's: a release on a node wakes every waiter of the
 * name (a node's line is not the quorum's, so the waiter it names has no turn); a lease one node lost is not the
 * quorum's loss, which the renewals decide by majority.
 */
final class NodeEvents implements StoreEvents {

    private final StoreEvents quorum;

    /** @param quorum the events the engine gave the quorum */
    NodeEvents(StoreEvents quorum) {
        this.quorum = quorum;
    }

    @Override
    public void released(String name, @Nullable String next) {
        quorum.released(name, null);
    }

    @Override
    public void leaseLost(String ownerToken) {
        // Not the quorum's loss: see the class comment.
    }
}
