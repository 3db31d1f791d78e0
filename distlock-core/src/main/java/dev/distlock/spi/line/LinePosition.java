package dev.distlock.spi.line;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;

/**
 * Where a request's entry stands in its name's line, and what it must wait for; worked out once from the line as
 * listed, by the request's mode. The rules are those of Curator's {@code InterProcessReadWriteLock}, with permits:
 * <ul>
 * <li>an exclusive entry {@link Holds holds} when no entry precedes it, else it {@link WaitsBehind waits behind} its
 * immediate predecessor;</li>
 * <li>a reader holds when no writer precedes it (readers share), else it waits behind the nearest writer before
 * it;</li>
 * <li>an entry of one of {@code n} permits holds while fewer than {@code n} entries precede it, so waiters are
 * served in arrival order; else it {@link WaitsForAPermit waits for a permit}, freed by whichever entry before it
 * leaves first, so there is no single entry to watch.</li>
 * </ul>
 * Each lock waiter watches one entry: a release wakes one waiter (or the readers right behind a writer), not the
 * herd. When the watched entry goes, the waiter looks again: it may have given up while entries before it still
 * wait.
 * <p>
 * Every caller of a name must ask with the same permits (1 for a lock of any type). Only a holder says with how many
 * the name is held: the first entry in line, which always holds. An entry that disagrees with it is
 * {@link Mismatched} (its request leaves the line and fails); an entry that disagrees and is not first holds nothing
 * and is ignored by everyone else, so that a caller with the wrong number makes no rightful caller fail. A caller
 * never fails because of one that came after it.
 *
 * @param <K> how the store names an entry in a listing
 */
public sealed interface LinePosition<K> permits LinePosition.Gone, LinePosition.Mismatched, LinePosition.Holds,
        LinePosition.Waits {

    /**
     * @param <K> how the store names an entry
     * @param line the line as listed, in any order; it may leave out entries that cannot matter to {@code own}
     *        (entries after it, entries of another line), but never the first entry of the name nor those that
     *        decide {@code own}'s standing
     * @param own the request's own entry's id
     * @return where it stands
     */
    static <K> LinePosition<K> of(List<LinePlace<K>> line, K own) {
        LinePlace<K> mine = null;
        LinePlace<K> first = null;
        for (LinePlace<K> place : line) {
            if (place.id().equals(own)) {
                mine = place;
            }
            if (first == null || place.order() < first.order()) {
                first = place;
            }
        }
        if (mine == null) {
            return new Gone<>();
        }
        int permits = mine.permits();
        int heldWith = Objects.requireNonNull(first, "own is in line").permits();
        if (heldWith != permits) {
            return new Mismatched<>(heldWith);
        }
        int before = 0;
        LinePlace<K> blocker = null;
        for (LinePlace<K> place : line) {
            if (place.order() >= mine.order() || place.permits() != permits) {
                continue; // after ours, or of another number: about to fail and leave, it holds nothing
            }
            before++;
            if ((mine.shared() && place.shared()) || (blocker != null && place.order() <= blocker.order())) {
                continue;
            }
            blocker = place; // the nearest blocking entry before ours, for a lock
        }
        if (permits > 1) {
            return before < permits ? new Holds<>() : new WaitsForAPermit<>();
        }
        return blocker == null ? new Holds<>() : new WaitsBehind<>(blocker.id());
    }

    /**
     * @param <K> how the store names an entry
     * @param line the whole line of a name as listed, in any order
     * @return the entries that hold the name now: of the entries that agree with the first one on the permits, the
     *         first {@code n} when it asks for {@code n}, the first when it is exclusive, else the readers before the
     *         first writer; in line order
     */
    static <K> List<LinePlace<K>> holders(List<LinePlace<K>> line) {
        if (line.isEmpty()) {
            return List.of();
        }
        List<LinePlace<K>> inLine = line.stream().sorted(Comparator.comparingLong(LinePlace::order)).toList();
        LinePlace<K> first = inLine.get(0);
        int heldWith = first.permits();
        // An entry that disagrees with the first on the permits holds nothing (see of).
        List<LinePlace<K>> agreeing = inLine.stream().filter(place -> place.permits() == heldWith).toList();
        if (first.shared()) {
            return agreeing.stream().takeWhile(LinePlace::shared).toList();
        }
        return agreeing.subList(0, Math.min(heldWith, agreeing.size()));
    }

    /**
     * The entry is not in the line: deleted behind the request's back (its session or lease ended, an operator).
     *
     * @param <K> how the store names an entry
     */
    record Gone<K>() implements LinePosition<K> {
    }

    /**
     * The name is held with another number of permits than the request's: the request fails.
     *
     * @param <K> how the store names an entry
     * @param heldWith the permits of the first entry in line (1 for a lock)
     */
    record Mismatched<K>(int heldWith) implements LinePosition<K> {
    }

    /**
     * The request holds the lock, or one of its permits.
     *
     * @param <K> how the store names an entry
     */
    record Holds<K>() implements LinePosition<K> {
    }

    /**
     * The request waits: its driver watches what it waits for and the registry wakes it.
     *
     * @param <K> how the store names an entry
     */
    sealed interface Waits<K> extends LinePosition<K> permits WaitsBehind, WaitsForAPermit {
    }

    /**
     * A lock request waits for one entry to be deleted.
     *
     * @param <K> how the store names an entry
     * @param predecessor the entry it waits for
     */
    record WaitsBehind<K>(K predecessor) implements Waits<K> {

        /** Checks the value. */
        public WaitsBehind {
            Objects.requireNonNull(predecessor, "predecessor");
        }
    }

    /**
     * A permit request waits for any entry before it to leave: it watches its name's line as a whole.
     *
     * @param <K> how the store names an entry
     */
    record WaitsForAPermit<K>() implements Waits<K> {
    }
}
