package dev.distlock.test.support;

import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Supplier;
import java.util.stream.Collectors;

import dev.distlock.LockHandle;
import dev.distlock.listener.LockListener;
import org.jspecify.annotations.Nullable;

import static org.assertj.core.api.Assertions.fail;

/**
 * Records every grant of a fault test — lock name, node, fencing token, start and end of the work done under the
 * lock, and whether the lease was reported lost — and checks the history afterwards:
 * <ul>
 * <li>holds of one name never overlap, unless the earlier one's lease was reported lost (or its fixed lease ran
 * out);</li>
 * <li>fencing tokens increase in grant order, per name;</li>
 * <li>for a name shared by several holders ({@link #permits(String, int)}): never more holders counted on at once
 * than it has permits, and a grant asked for after another's work began has a higher token
 * ({@link PermitCheck}).</li>
 * </ul>
 * The recorded interval is the work itself (after the acquire returned, before the unlock), which lies inside the
 * store's hold: with mutual exclusion two such intervals cannot overlap, whatever the clocks of the stores.
 * Register {@link #listener()} with every node's lock service so that lease losses are known.
 * <p>
 * A grant recorded with the moment its holder last counted on it
 * ({@link #record(String, String, long, long, long, boolean, long)}) is checked more strictly: its work may go on
 * past its lease (a fixed lease whose work lasts longer), but no later grant of the name may begin before that
 * moment, i.e. the holder must have been told (listener, or {@link LockHandle#isHeld()} false) before another
 * holder began. The same check covers leadership terms recorded as grants: from {@code granted} to {@code revoked},
 * counted on until {@code revoked} or an earlier report of the lease's loss.
 */
public final class LockHistory {

    private final List<Grant> grants = new CopyOnWriteArrayList<>();

    private final Map<String, Integer> permits = new java.util.concurrent.ConcurrentHashMap<>();

    private final Set<LockHandle> reportedLost = Collections.synchronizedSet(
            Collections.newSetFromMap(new IdentityHashMap<>()));

    private final LockListener listener = new LockListener() {
        @Override
        public void leaseLost(LockHandle handle) {
            reportedLost.add(handle);
        }

        @Override
        public void expired(LockHandle handle) {
            reportedLost.add(handle);
        }
    };

    /** @return the listener that tells this history about lost and expired leases; add it to every node */
    public LockListener listener() {
        return listener;
    }

    /**
     * Declares a name shared by several holders at once ({@code LockOptions.withPermits}): its grants are checked
     * by {@link PermitCheck} instead of for mutual exclusion.
     *
     * @param name the lock name
     * @param count its permits, at least 2
     */
    public void permits(String name, int count) {
        if (count < 2) {
            throw new IllegalArgumentException("A shared name has at least 2 permits: " + count);
        }
        permits.put(name, count);
    }

    /**
     * Runs work under a held lock and records it.
     *
     * @param node the node (or thread) that holds the lock
     * @param handle the held lock
     * @param work the work
     * @param <T> the result type
     * @return what the work returned
     */
    public <T> T hold(String node, LockHandle handle, Supplier<T> work) {
        long start = System.nanoTime();
        try {
            return work.get();
        }
        finally {
            long end = System.nanoTime();
            grants.add(new Grant(handle.name(), node, handle.fencingToken(), start, end, handle, end));
        }
    }

    /**
     * Runs work under a held lock and records it.
     *
     * @param node the node (or thread) that holds the lock
     * @param handle the held lock
     * @param work the work
     */
    public void hold(String node, LockHandle handle, Runnable work) {
        hold(node, handle, () -> {
            work.run();
            return null;
        });
    }

    /**
     * Records a grant observed elsewhere (e.g. in another process).
     *
     * @param name the lock name
     * @param node the holder
     * @param fencingToken its token
     * @param startNanos when the work began ({@link System#nanoTime()} of this JVM)
     * @param endNanos when it ended
     * @param lost whether its lease was reported lost
     */
    public void record(String name, String node, long fencingToken, long startNanos, long endNanos, boolean lost) {
        grants.add(new Grant(name, node, fencingToken, startNanos, endNanos, lost ? LOST_MARK : null, endNanos));
    }

    /**
     * Records a grant observed elsewhere, with the last moment its holder counted on it: no later grant of the name
     * may begin before that moment, whether or not the loss was reported by the end of the work.
     *
     * @param name the lock name
     * @param node the holder
     * @param fencingToken its token
     * @param startNanos when the work began ({@link System#nanoTime()} of this JVM)
     * @param endNanos when it ended (may be after the lease ended: the work of a fixed lease can outlast it)
     * @param lost whether its lease was reported lost (counted, not used by the check)
     * @param countedOnUntilNanos the last moment the holder still counted on the lock: when it last saw
     *        {@link LockHandle#isHeld()} true (taken before that call), or was last told it led; {@code endNanos}
     *        when it was never told otherwise
     */
    public void record(String name, String node, long fencingToken, long startNanos, long endNanos, boolean lost,
            long countedOnUntilNanos) {
        record(name, node, fencingToken, startNanos, startNanos, endNanos, lost, countedOnUntilNanos);
    }

    /**
     * As {@link #record(String, String, long, long, long, boolean, long)}, with the moment the acquire was called:
     * for a name with {@link #permits(String, int) permits}, whose tokens increase only between a grant and an
     * acquire called after that grant's work began.
     *
     * @param name the lock name
     * @param node the holder
     * @param fencingToken its token
     * @param calledNanos when the acquire that granted it was called
     * @param startNanos when the work began
     * @param endNanos when it ended
     * @param lost whether its lease was reported lost (counted, not used by the check)
     * @param countedOnUntilNanos the last moment the holder still counted on the lock
     */
    public void record(String name, String node, long fencingToken, long calledNanos, long startNanos,
            long endNanos, boolean lost, long countedOnUntilNanos) {
        grants.add(new Grant(name, node, fencingToken, startNanos, endNanos, lost ? LOST_MARK : null,
                Math.min(endNanos, countedOnUntilNanos), true, calledNanos));
    }

    private static final Object LOST_MARK = new Object();

    /** @return the grants recorded so far, in the order they started */
    public List<Grant> grants() {
        List<Grant> sorted = new ArrayList<>(grants);
        sorted.sort(Comparator.comparingLong(Grant::startNanos));
        return sorted;
    }

    /** @return the number of grants whose lease was reported lost */
    public long lostLeases() {
        return grants.stream().filter(this::lost).count();
    }

    /**
     * Fails, listing the offending grants, when two holds of a name overlap without a reported lease loss of the
     * earlier one, or when tokens do not increase in grant order.
     */
    public void assertConsistent() {
        List<String> problems = new ArrayList<>();
        Set<Grant> flagged = Collections.newSetFromMap(new IdentityHashMap<>());
        Map<String, List<Grant>> byName = grants().stream()
                .collect(Collectors.groupingBy(Grant::name, java.util.LinkedHashMap::new, Collectors.toList()));
        byName.forEach((name, list) -> {
            Integer shared = permits.get(name);
            if (shared != null) {
                problems.addAll(new PermitCheck(shared, this::lost).problems(list));
                return;
            }
            for (int i = 1; i < list.size(); i++) {
                Grant later = list.get(i);
                Grant before = list.get(i - 1);
                if (later.fencingToken() <= before.fencingToken()) {
                    problems.add("tokens do not increase: " + before + " then " + later);
                }
                for (int j = 0; j < i; j++) {
                    Grant earlier = list.get(j);
                    if (earlier.strict() && earlier.countedOnUntilNanos() > later.startNanos()) {
                        // Once per earlier grant (with the first holder that began too soon): a long hold counted
                        // on too long would otherwise fill the report with every later grant of the name.
                        if (flagged.add(earlier)) {
                            problems.add("counted on after another holder began (not told before it): " + earlier
                                    + " and " + later);
                        }
                    }
                    else if (!earlier.strict() && earlier.endNanos() > later.startNanos() && !lost(earlier)) {
                        problems.add("overlap without a reported lease loss: " + earlier + " and " + later);
                    }
                }
            }
        });
        if (!problems.isEmpty()) {
            fail(problems.size() + " problem(s) in a history of " + grants.size() + " grants:\n  "
                    + String.join("\n  ", problems.subList(0, Math.min(20, problems.size()))));
        }
    }

    boolean lost(Grant grant) {
        Object handle = grant.handle();
        return handle == LOST_MARK || (handle instanceof LockHandle h && reportedLost.contains(h));
    }

    /**
     * One grant.
     *
     * @param name the lock name
     * @param node the holder
     * @param fencingToken its fencing token
     * @param startNanos when its work began
     * @param endNanos when its work ended
     * @param handle the handle (identity, for lease-loss reports), or a marker
     * @param countedOnUntilNanos the last moment the holder counted on it ({@code endNanos} unless recorded)
     * @param strict whether the check uses {@code countedOnUntilNanos} rather than the loss report
     * @param calledNanos when the acquire was called ({@code startNanos} when not recorded)
     */
    public record Grant(String name, String node, long fencingToken, long startNanos, long endNanos,
            @Nullable Object handle, long countedOnUntilNanos, boolean strict, long calledNanos) {

        Grant(String name, String node, long fencingToken, long startNanos, long endNanos, @Nullable Object handle,
                long countedOnUntilNanos) {
            this(name, node, fencingToken, startNanos, endNanos, handle, countedOnUntilNanos, false, startNanos);
        }

        /** @return the last moment its holder counted on it, as the checks see it */
        long countedOnUntil(boolean reportedLost) {
            return strict ? countedOnUntilNanos : reportedLost ? startNanos : endNanos;
        }

        @Override
        public String toString() {
            return "[" + name + " by " + node + ", token " + fencingToken + ", " + startNanos / 1000 + "-"
                    + endNanos / 1000 + " µs" + (strict && countedOnUntilNanos != endNanos
                            ? ", counted on until " + countedOnUntilNanos / 1000 + " µs" : "")
                    + "]";
        }
    }
}
