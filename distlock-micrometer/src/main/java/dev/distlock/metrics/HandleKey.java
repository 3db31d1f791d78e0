package dev.distlock.metrics;

import dev.distlock.LockHandle;

/**
 * A map key that compares handles by identity: an engine's handle may define {@code equals} in any way (or not
 * at all), but each acquisition is one object.
 *
 * @param handle the handle
 */
record HandleKey(LockHandle handle) {

    @Override
    public boolean equals(Object other) {
        return other instanceof HandleKey key && key.handle == handle;
    }

    @Override
    public int hashCode() {
        return System.identityHashCode(handle);
    }
}
