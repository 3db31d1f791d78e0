package dev.distlock.zookeeper;

import java.util.Comparator;
import java.util.List;
import java.util.Objects;

import org.jspecify.annotations.Nullable;

/**
 * Where a request's node stands among the nodes of its lock, in ZooKeeper's sequence order, and what it must wait
 * for. A node's name says what its request is ({@link LockPaths}). Locks follow the read/write rules of Curator's
 * {@code InterProcessReadWriteLock}:
 * <ul>
 * <li>an exclusive request holds the lock when no node precedes it, else it waits for its immediate predecessor;</li>
 * <li>a reader holds it when no exclusive node precedes it (readers share), else it waits for the nearest exclusive
 * node before it.</li>
 * </ul>
 * Each lock waiter watches one node, never the whole parent: a release wakes one waiter (or the readers right behind
 * a writer), not the herd. When the watched node goes, the waiter looks again — the predecessor may have given up
 * while nodes before it still wait.
 * <p>
 * Permits (a request of one of {@code n}, node {@code __PERMITS_<n>__}) form a FIFO semaphore on the same line:
 * <ul>
 * <li>the request holds a permit when fewer than {@code n} nodes precede it: the first {@code n} nodes in line hold
 * the name, the rest wait in arrival order;</li>
 * <li>a waiter watches the whole line ({@link Standing#WAITING_FOR_A_PERMIT}): the permit it waits for is freed by
 * whichever of the nodes before it leaves first.</li>
 * </ul>
 * Every caller of a name must ask with the same permits (1 for a lock of any type). Only a holder says with how many
 * the name is held: the first node in line, which always holds. A request whose node disagrees with it is
 * {@link Standing#MISMATCHED} (and leaves the line); a node that disagrees and is not first holds nothing and is
 * ignored by everyone else, so that a caller with the wrong number, while its node is in line, makes no rightful
 * caller fail. A caller never fails because of one that came after it.
 *
 * @param standing where the request's node stands
 * @param predecessor the child to watch when {@link Standing#WAITING}
 * @param heldWith the permits of the first node in line, when {@link Standing#MISMATCHED}; else 0
 */
record QueuePosition(Standing standing, @Nullable String predecessor, int heldWith) {

    /** Where a request's node stands in its lock's line. */
    enum Standing {

        /** The node is not among the children: it is gone (deleted behind the request's back). */
        GONE,

        /** An earlier node in line asks for other permits: the request fails (see {@link #heldWith()}). */
        MISMATCHED,

        /** The request holds the lock, or one of its permits. */
        GRANTED,

        /** The lock request waits for {@link QueuePosition#predecessor()}. */
        WAITING,

        /** The permit request waits for any node before it to leave. */
        WAITING_FOR_A_PERMIT
    }

    private static final QueuePosition GONE = new QueuePosition(Standing.GONE, null, 0);

    private static final QueuePosition GRANTED = new QueuePosition(Standing.GRANTED, null, 0);

    private static final QueuePosition WAITING_FOR_A_PERMIT = new QueuePosition(Standing.WAITING_FOR_A_PERMIT, null,
            0);

    /**
     * @param children the children of the lock node, in any order
     * @param own the request's node name, which says whether it is a reader, a writer or a permit request
     * @return its position
     */
    static QueuePosition of(List<String> children, String own) {
        long ownSequence = LockPaths.sequence(own);
        int ownPermits = LockPaths.permits(own);
        boolean shared = LockPaths.isRead(own);
        boolean found = false;
        String first = null;
        long firstSequence = Long.MAX_VALUE;
        for (String child : children) {
            found |= child.equals(own);
            long sequence = LockPaths.sequence(child);
            if (sequence >= 0 && sequence < firstSequence) {
                first = child;
                firstSequence = sequence;
            }
        }
        if (!found) {
            return GONE;
        }
        int heldWith = LockPaths.permits(Objects.requireNonNull(first, "own is in line"));
        if (heldWith != ownPermits) {
            return new QueuePosition(Standing.MISMATCHED, null, heldWith);
        }
        int before = 0;
        String blocker = null;
        long blockerSequence = -1;
        for (String child : children) {
            long sequence = LockPaths.sequence(child);
            if (sequence < 0 || sequence >= ownSequence || LockPaths.permits(child) != ownPermits) {
                continue; // after ours, or of another number: about to fail and leave, it holds nothing
            }
            before++;
            if ((shared && LockPaths.isRead(child)) || sequence <= blockerSequence) {
                continue;
            }
            blocker = child; // the nearest blocking node before ours, for a lock
            blockerSequence = sequence;
        }
        if (ownPermits > 1) {
            return before < ownPermits ? GRANTED : WAITING_FOR_A_PERMIT;
        }
        return blocker == null ? GRANTED : new QueuePosition(Standing.WAITING, blocker, 0);
    }

    /**
     * @param children the children of the lock node, in any order
     * @return the nodes that hold the name now: of the nodes that agree with the first one on the permits, the
     *         first {@code n} when it asks for {@code n}, the first when it is exclusive, else the readers before
     *         the first exclusive node
     */
    static List<String> holders(List<String> children) {
        List<String> inLine = children.stream().filter(child -> LockPaths.sequence(child) >= 0)
                .sorted(Comparator.comparingLong(LockPaths::sequence)).toList();
        if (inLine.isEmpty()) {
            return List.of();
        }
        String first = inLine.get(0);
        int heldWith = LockPaths.permits(first);
        // A node that disagrees with the first on the permits holds nothing (see of).
        List<String> agreeing = inLine.stream().filter(child -> LockPaths.permits(child) == heldWith).toList();
        if (LockPaths.isRead(first)) {
            return agreeing.stream().takeWhile(LockPaths::isRead).toList();
        }
        return agreeing.subList(0, Math.min(heldWith, agreeing.size()));
    }
}
