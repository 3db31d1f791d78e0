package dev.distlock.spi;

import java.util.Map;

/**
 * Whether a {@link LockStore} can be reached now, with details for the health endpoint (never secrets).
 *
 * @param up whether the store answered within the timeout
 * @param details what was checked and how it went
 */
public record StoreHealth(boolean up, Map<String, Object> details) {

    /**
     * Copies the details.
     */
    public StoreHealth {
        details = Map.copyOf(details);
    }
}
