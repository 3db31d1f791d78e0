package dev.distlock.embedded;

import java.time.Duration;
import org.jspecify.annotations.Nullable;

/**
 * Explicit polling with a deadline, the one way topology code waits for a state of the servers: no fixed sleeps,
 * and a timeout message that says what was last seen.
 */
final class Poll {

    /** How often a state is probed: cheap commands on loopback, so 50 ms costs nothing and keeps waits short. */
    private static final long INTERVAL_MILLIS = 50;

    private Poll() {
    }

    /** A check that returns a value once the awaited state is reached, or {@code null} (or throws) before. */
    @FunctionalInterface
    interface Probe<T> {

        @Nullable T get();
    }

    /** Thrown by a probe to say why the state is not reached yet; the last reason ends up in the timeout. */
    static final class NotYet extends RuntimeException {

        private static final long serialVersionUID = 1L;

        NotYet(String reason) {
            super(reason, null, false, false);
        }
    }

    /**
     * Throws {@link NotYet}, for probes.
     *
     * @param reason what is not as awaited
     * @param <T> whatever the probe returns
     * @return never
     */
    static <T> T notYet(String reason) {
        throw new NotYet(reason);
    }

    /**
     * Probes until it yields a value or the timeout elapses. A probe's exception counts as "not yet".
     *
     * @param what the awaited state, for the timeout message
     * @param timeout how long to wait
     * @param probe the check
     * @param <T> the value type
     * @return the probe's first non-null value
     * @throws IllegalStateException on timeout, naming the state and the last reason
     */
    static <T> T until(String what, Duration timeout, Probe<T> probe) {
        long deadline = System.nanoTime() + timeout.toNanos();
        RuntimeException last = null;
        while (true) {
            try {
                T value = probe.get();
                if (value != null) {
                    return value;
                }
                last = null;
            }
            catch (RuntimeException ex) {
                last = ex;
            }
            if (System.nanoTime() - deadline > 0) {
                String reason = last == null ? "" : ": last seen " + last.getMessage();
                throw new IllegalStateException("Timed out after " + timeout + " waiting for " + what + reason, last);
            }
            pause();
        }
    }

    /**
     * Like {@link #until}, for a condition.
     *
     * @param what the awaited state
     * @param timeout how long to wait
     * @param condition the check
     */
    static void untilTrue(String what, Duration timeout, Probe<Boolean> condition) {
        until(what, timeout, () -> Boolean.TRUE.equals(condition.get()) ? Boolean.TRUE : null);
    }

    private static void pause() {
        try {
            Thread.sleep(INTERVAL_MILLIS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while waiting", ex);
        }
    }
}
