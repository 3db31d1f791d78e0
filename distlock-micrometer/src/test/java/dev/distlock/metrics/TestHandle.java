package dev.distlock.metrics;

import java.time.Duration;

import dev.distlock.LockHandle;

/**
 * A handle as the engine would report it, for unit tests of the event-to-meter mapping (no lock logic here).
 */
final class TestHandle implements LockHandle {

    private final String name;

    private final long token;

    private volatile boolean held = true;

    TestHandle(String name, long token) {
        this.name = name;
        this.token = token;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public long fencingToken() {
        return token;
    }

    @Override
    public boolean isHeld() {
        return held;
    }

    @Override
    public Duration remaining() {
        return held ? Duration.ofSeconds(30) : Duration.ZERO;
    }

    @Override
    public void unlock() {
        held = false;
    }

    /** Every handle is equal to every other: the listeners must not rely on equals. */
    @Override
    public boolean equals(Object other) {
        return other instanceof TestHandle;
    }

    @Override
    public int hashCode() {
        return 1;
    }
}
