package dev.distlock.sample.demo;

import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Finds the holds that overlap another hold of the same lock: moments with two holders at once, which the lock
 * exists to prevent. Intervals are half-open ({@code [acquiredAt, releasedAt)}), so a hold that starts exactly when
 * the previous one ended does not overlap it.
 */
final class OverlapMarker {

    private OverlapMarker() {
    }

    /**
     * @param holds holds and given-up waits of one lock, in any order
     * @return the same entries ordered by start (waits that gave up by request time, after the holds), each hold
     *         marked when it overlaps any other hold
     */
    static List<Hold> mark(List<Hold> holds) {
        List<Hold> sorted = new ArrayList<>(holds);
        sorted.sort(Comparator.comparing(Hold::held).reversed()
                .thenComparingLong(h -> h.held() ? h.acquiredAt() : h.requestedAt())
                .thenComparingLong(Hold::releasedAt));
        int held = (int) sorted.stream().filter(Hold::held).count();
        // Sorted by start: hold i overlaps an earlier one iff it starts before the latest end so far, and a later
        // one iff the next hold (the earliest later start) starts before it ends. O(n log n), exact.
        long latestEnd = Long.MIN_VALUE;
        boolean[] overlaps = new boolean[held];
        for (int i = 0; i < held; i++) {
            Hold hold = sorted.get(i);
            if (hold.acquiredAt() < latestEnd) {
                overlaps[i] = true;
            }
            if (i + 1 < held && sorted.get(i + 1).acquiredAt() < hold.releasedAt()) {
                overlaps[i] = true;
            }
            latestEnd = Math.max(latestEnd, hold.releasedAt());
        }
        for (int i = 0; i < held; i++) {
            if (overlaps[i]) {
                sorted.set(i, sorted.get(i).overlapping());
            }
        }
        return sorted;
    }
}
