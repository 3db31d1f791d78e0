package dev.distlock.zookeeper;

import java.util.Comparator;
import java.util.List;

import org.jspecify.annotations.Nullable;

/**
 * Where a request's node stands among the nodes of its lock, in ZooKeeper's sequence order, and which node it must
 * wait for — the read/write rules of Curator's {@code InterProcessReadWriteLock}:
 * <ul>
 * <li>an exclusive request holds the lock when no node precedes it, else it waits for its immediate predecessor;</li>
 * <li>a reader holds it when no exclusive node precedes it (readers share), else it waits for the nearest exclusive
 * node before it.</li>
 * </ul>
 * Each waiter watches one node, never the whole parent: a release wakes one waiter (or the readers right behind a
 * writer), not the herd. When the watched node goes, the waiter looks again — the predecessor may have given up
 * while nodes before it still wait.
 *
 * @param standing where the request's node stands
 * @param predecessor the child to watch when {@link Standing#WAITING}
 */
record QueuePosition(Standing standing, @Nullable String predecessor) {

    /** Where a request's node stands in its lock's line. */
    enum Standing {

        /** The node is not among the children: it is gone (deleted behind the request's back). */
        GONE,

        /** The request holds the lock. */
        GRANTED,

        /** The request waits for {@link QueuePosition#predecessor()}. */
        WAITING
    }

    private static final QueuePosition GONE = new QueuePosition(Standing.GONE, null);

    private static final QueuePosition GRANTED = new QueuePosition(Standing.GRANTED, null);

    /**
     * @param children the children of the lock node, in any order
     * @param own the request's node name
     * @param shared whether the request is a reader
     * @return its position
     */
    static QueuePosition of(List<String> children, String own, boolean shared) {
        long ownSequence = LockPaths.sequence(own);
        boolean found = false;
        String blocker = null;
        long blockerSequence = -1;
        for (String child : children) {
            if (child.equals(own)) {
                found = true;
                continue;
            }
            long sequence = LockPaths.sequence(child);
            if (sequence < 0 || sequence >= ownSequence || (shared && LockPaths.isRead(child))) {
                continue;
            }
            if (sequence > blockerSequence) { // the nearest blocking node before ours
                blocker = child;
                blockerSequence = sequence;
            }
        }
        if (!found) {
            return GONE;
        }
        return blocker == null ? GRANTED : new QueuePosition(Standing.WAITING, blocker);
    }

    /**
     * @param children the children of the lock node, in any order
     * @return the nodes that hold the lock now: the first node when it is exclusive, else the readers before the
     *         first exclusive node
     */
    static List<String> holders(List<String> children) {
        List<String> inLine = children.stream().filter(child -> LockPaths.sequence(child) >= 0)
                .sorted(Comparator.comparingLong(LockPaths::sequence)).toList();
        if (inLine.isEmpty() || !LockPaths.isRead(inLine.get(0))) {
            return inLine.isEmpty() ? List.of() : List.of(inLine.get(0));
        }
        return inLine.stream().takeWhile(LockPaths::isRead).toList();
    }
}
