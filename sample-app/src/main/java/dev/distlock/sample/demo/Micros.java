package dev.distlock.sample.demo;

import java.time.Instant;

/** Wall-clock time in microseconds since the epoch: the unit of every time the sample page stores. */
final class Micros {

    private Micros() {
    }

    /**
     * The wall clock, not {@link System#nanoTime()}: the instances are separate JVMs and their times are compared
     * with each other. On Linux {@link Instant#now()} has microsecond resolution.
     *
     * @return now, in microseconds since the epoch
     */
    static long now() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }
}
