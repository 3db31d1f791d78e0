package dev.distlock.sample.demo;

import java.util.List;

/**
 * A window of one lock's merged history, for the page's timeline.
 *
 * @param lockName the lock
 * @param from start of the window, microseconds since the epoch
 * @param to end of the window, microseconds since the epoch
 * @param instances every instance the history knows, in start order (the lanes)
 * @param entries holds and given-up waits that overlap the window, by start; overlapping holds marked
 * @param overlaps how many holds overlap another one
 * @param truncated whether older entries of the window were left out ({@link TimelineRepository#MAX_READ})
 */
public record Timeline(String lockName, long from, long to, List<Instance> instances, List<Hold> entries,
        long overlaps, boolean truncated) {
}
