package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.List;
import java.util.function.ToLongFunction;

/**
 * The figures of workload K computed from one flash sale's merged lock timeline: how much of the sale's wall time
 * the lock, and the locked method's body, were busy, and the hand-offs from one holder to the next. Pure
 * computation on the times the sample recorded, so that it can be checked on numbers given by hand.
 * <p>
 * All times are microseconds since the epoch, from the wall clocks of processes on one machine (the same clock).
 */
final class FlashSaleFigures {

    private FlashSaleFigures() {
    }

    /**
     * One entry of the sample's timeline ({@code GET /api/demo/timeline}).
     *
     * @param instanceId the instance that made the call
     * @param outcome {@code sold}, {@code sold-out}, {@code restock}, {@code timeout}, ...
     * @param lockGrantedAt when the lock service granted the lock, or null (no lock taken)
     * @param bodyStartedAt when the locked method's body started, or null (it never ran: a wait that gave up)
     * @param bodyEndedAt when the body ended (or the caller gave up waiting)
     * @param lockReleasedAt when the lock service's release returned, or null (no lock taken)
     */
    record Entry(String instanceId, String outcome, Long lockGrantedAt, Long bodyStartedAt, long bodyEndedAt,
            Long lockReleasedAt) {

        /** @return whether the lock was granted and released, so the entry is a hold of the lock */
        boolean lockHeld() {
            return lockGrantedAt != null && lockReleasedAt != null;
        }

        /** @return whether the body ran */
        boolean bodyRan() {
            return bodyStartedAt != null;
        }
    }

    /**
     * One hand-off: a holder released the lock and the next holder was granted it.
     *
     * @param crossInstance whether the next holder is on another instance than the previous one
     * @param previousBodyEnd when the previous holder's body ended
     * @param released when the previous holder's release returned
     * @param granted when the next holder was granted the lock
     * @param nextBodyStart when the next holder's body started
     */
    record HandOff(boolean crossInstance, long previousBodyEnd, long released, long granted, long nextBodyStart) {

        /** @return release returned → next grant, µs; negative when the grant came before the release returned */
        long gap() {
            return granted - released;
        }

        /** @return previous body's end → its release returned (the commit and the release round trip), µs */
        long bodyEndToRelease() {
            return released - previousBodyEnd;
        }

        /** @return grant → the next body's start (the lock advice and the transaction's begin), µs */
        long grantToBodyStart() {
            return nextBodyStart - granted;
        }

        /** @return previous body's end → next body's start: the time no body runs across this hand-off, µs */
        long bodyGap() {
            return nextBodyStart - previousBodyEnd;
        }
    }

    /**
     * The lock's busy fraction: the time some instance holds the lock (from grant to release) ÷ the wall time.
     *
     * @param entries the sale's timeline
     * @param from the sale's start
     * @param to the sale's end
     * @return between 0 and 1
     */
    static double lockBusyFraction(List<Entry> entries, long from, long to) {
        return busyFraction(entries.stream().filter(Entry::lockHeld)
                .map(e -> new long[] {e.lockGrantedAt(), e.lockReleasedAt()}).toList(), from, to);
    }

    /**
     * The body's busy fraction: the time some instance runs the locked method's body ÷ the wall time.
     *
     * @param entries the sale's timeline
     * @param from the sale's start
     * @param to the sale's end
     * @return between 0 and 1
     */
    static double bodyBusyFraction(List<Entry> entries, long from, long to) {
        return busyFraction(entries.stream().filter(Entry::bodyRan)
                .map(e -> new long[] {e.bodyStartedAt(), e.bodyEndedAt()}).toList(), from, to);
    }

    /**
     * The length of the union of intervals clipped to {@code [from, to)}, ÷ {@code to - from}: overlapping intervals
     * (bodies of an unlocked sale) count once.
     *
     * @param intervals {@code [start, end]} pairs, in any order
     * @param from the window's start
     * @param to the window's end
     * @return between 0 and 1; NaN for an empty window
     */
    static double busyFraction(List<long[]> intervals, long from, long to) {
        if (to <= from) {
            return Double.NaN;
        }
        List<long[]> sorted = new ArrayList<>(intervals);
        sorted.sort(Comparator.comparingLong(i -> i[0]));
        long busy = 0;
        long coveredTo = from;
        for (long[] interval : sorted) {
            long start = Math.max(interval[0], coveredTo);
            long end = Math.min(interval[1], to);
            if (end > start) {
                busy += end - start;
                coveredTo = end;
            }
        }
        return (double) busy / (to - from);
    }

    /**
     * The hand-offs of a locked sale: holds ordered by grant, each paired with the one before it.
     *
     * @param entries the sale's timeline; entries that did not hold the lock are left out
     * @return one hand-off per pair of consecutive holds, in grant order
     */
    static List<HandOff> handOffs(List<Entry> entries) {
        List<Entry> holds = new ArrayList<>(entries.stream().filter(Entry::lockHeld).filter(Entry::bodyRan).toList());
        holds.sort(Comparator.comparingLong(Entry::lockGrantedAt));
        List<HandOff> handOffs = new ArrayList<>();
        for (int i = 1; i < holds.size(); i++) {
            Entry previous = holds.get(i - 1);
            Entry next = holds.get(i);
            handOffs.add(new HandOff(!previous.instanceId().equals(next.instanceId()), previous.bodyEndedAt(),
                    previous.lockReleasedAt(), next.lockGrantedAt(), next.bodyStartedAt()));
        }
        return handOffs;
    }

    /**
     * For each hand-off, when the harness saw the release channel's PUBLISH that woke the next holder: the last
     * message seen after the previous body ended and no later than the grant. Redis publishes in the release
     * script, so that message belongs to this hand-off's release; a hand-off with none (a local hand-off inside one
     * instance, or a message the harness missed) gets no value.
     *
     * @param handOffs the hand-offs, in grant order
     * @param published when the harness received each message of the release channel, in any order
     * @return one value per hand-off, {@link Long#MIN_VALUE} where no message matched
     */
    static long[] publishSeen(List<HandOff> handOffs, long[] published) {
        long[] sorted = published.clone();
        Arrays.sort(sorted);
        long[] seen = new long[handOffs.size()];
        for (int i = 0; i < handOffs.size(); i++) {
            HandOff handOff = handOffs.get(i);
            int at = lastAtOrBefore(sorted, handOff.granted());
            seen[i] = at >= 0 && sorted[at] >= handOff.previousBodyEnd() ? sorted[at] : Long.MIN_VALUE;
        }
        return seen;
    }

    private static int lastAtOrBefore(long[] sorted, long value) {
        int index = Arrays.binarySearch(sorted, value);
        if (index >= 0) {
            while (index + 1 < sorted.length && sorted[index + 1] == value) {
                index++;
            }
            return index;
        }
        return -index - 2;
    }

    /**
     * @param handOffs hand-offs
     * @param part what to take of each
     * @return the values, sorted
     */
    static long[] sorted(List<HandOff> handOffs, ToLongFunction<HandOff> part) {
        return handOffs.stream().mapToLong(part).sorted().toArray();
    }

    /**
     * Nearest-rank percentile: the smallest value that at least {@code quantile} of the values are at or below.
     *
     * @param sorted values, ascending
     * @param quantile between 0 and 1
     * @return the percentile, NaN when there is no value
     */
    static double percentile(long[] sorted, double quantile) {
        if (sorted.length == 0) {
            return Double.NaN;
        }
        int index = (int) Math.ceil(quantile * sorted.length) - 1;
        return sorted[Math.max(0, Math.min(sorted.length - 1, index))];
    }
}
