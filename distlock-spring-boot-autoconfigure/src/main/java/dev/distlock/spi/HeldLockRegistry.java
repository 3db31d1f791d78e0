package dev.distlock.spi;

import java.util.List;

/**
 * Read-only view of the locks this instance holds and of its watchdog, for the actuator endpoint and health.
 */
public interface HeldLockRegistry {

    /** @return the locks held now, oldest first */
    List<HeldLockInfo> heldLocks();

    /** @return the watchdog state */
    WatchdogStatus watchdogStatus();
}
