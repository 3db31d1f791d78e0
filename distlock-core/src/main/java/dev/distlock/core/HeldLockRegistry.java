package dev.distlock.core;

import java.time.Duration;
import java.util.List;

import dev.distlock.spi.StoreHealth;

/**
 * Read-only view of the locks this instance holds, of its watchdog and of its store, for the actuator endpoint and
 * health.
 */
public interface HeldLockRegistry {

    /** @return the locks held now, oldest first */
    List<HeldLockInfo> heldLocks();

    /** @return the groups this instance leads now (its leadership campaigns), sorted */
    default List<String> leaderOf() {
        return List.of();
    }

    /** @return the watchdog state */
    WatchdogStatus watchdogStatus();

    /**
     * @param timeout how long to wait for the store
     * @return whether the store answers now
     */
    StoreHealth storeHealth(Duration timeout);
}
