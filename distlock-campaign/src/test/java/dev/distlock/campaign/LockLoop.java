package dev.distlock.campaign;

import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.listener.LockListener;
import org.jspecify.annotations.Nullable;

/**
 * One worker of a node: takes a random lock name with a random wait, holds it (mostly for milliseconds, sometimes
 * for seconds), unlocks, and reports every grant and failure to a {@link Sink}. Some turns take two names together
 * ({@link LockService#tryLockAll}: each is recorded as a grant of its name), and on a store with permits some take
 * the name {@value #SHARED}, shared by {@value #SHARED_PERMITS} holders. The same loop runs in the test JVM and in
 * child JVMs.
 * <p>
 * A grant counts as reported lost when the node's listener reported the lease lost or expired, or when
 * {@link LockHandle#isHeld()} is false: both are how the library tells an application that it no longer holds the
 * lock. While it works the worker looks every 10 ms, and the last moment it was not told (taken before the look) is
 * recorded: the history requires that no other holder began before it.
 * <p>
 * One hold in {@value #FIXED_ONE_IN} is on a fixed lease (the topology's, not renewed) whose work lasts longer
 * than the lease: the worker goes on working past it, as a job that overruns its lease would, and the history
 * accepts the overlap with the next holder only because the holder was told (expired, or {@code isHeld()} false)
 * before that holder began.
 */
final class LockLoop implements Runnable {

    /** The lock names every node competes for. */
    static final List<String> NAMES = List.of("c0", "c1", "c2");

    /** One hold in this many is on a fixed lease and outlasts it. */
    static final int FIXED_ONE_IN = 60;

    /** One turn in this many takes two of {@link #NAMES} together ({@link LockService#tryLockAll}). */
    static final int SEVERAL_ONE_IN = 8;

    /** The name shared by {@value #SHARED_PERMITS} holders, on stores with permits. */
    static final String SHARED = "p0";

    /** The permits of {@link #SHARED}. */
    static final int SHARED_PERMITS = 2;

    /** One turn in this many takes {@link #SHARED}, on stores with permits. */
    static final int SHARED_ONE_IN = 8;

    private static final Duration[] WAITS = { Duration.ZERO, Duration.ofMillis(200), Duration.ofSeconds(1),
            Duration.ofSeconds(3) };

    /** Where a loop reports. */
    interface Sink {

        /**
         * A grant, reported when the work under it begins (so that a crash in the middle still leaves a trace).
         *
         * @param calledNanos when the acquire that granted it was called
         * @param deadlineNanos for a fixed lease, the moment {@code isHeld()} turns false (the engine's deadline,
         *        {@code remaining()} from now); {@link Long#MAX_VALUE} for a lease the watchdog renews
         * @param fixed whether it is on a fixed lease that its work outlasts
         */
        void began(String name, long token, long calledNanos, long startNanos, long deadlineNanos, boolean fixed);

        /**
         * The node learned, in the middle of the work, that the lease is lost (it stops working then, unless the work
         * deliberately outlasts a fixed lease).
         *
         * @param countedOnUntilNanos the last moment the worker was not told (before its last look)
         */
        void lostNoticed(String name, long token, long countedOnUntilNanos);

        /**
         * The end of the work under a grant.
         *
         * @param calledNanos when the acquire that granted it was called
         * @param lost whether the loss (or a fixed lease's end) was reported by the end of the work
         * @param countedOnUntilNanos the last moment the worker was not told; {@code endNanos} when it never was
         * @param fixed whether the hold was on a fixed lease that its work outlasts
         */
        void ended(String name, long token, long calledNanos, long startNanos, long endNanos, boolean lost,
                long countedOnUntilNanos, boolean fixed);

        /** An empty {@code tryLock}. */
        void timedOut();

        /** A lock or unlock call that threw. */
        void failed(Throwable failure);
    }

    /** The handles whose lease a node's listener reported lost or expired, with the time of the report. */
    static final class LostLeases implements LockListener {

        private final Map<LockHandle, Long> lost = Collections.synchronizedMap(new IdentityHashMap<>());

        @Override
        public void leaseLost(LockHandle handle) {
            lost.putIfAbsent(handle, System.nanoTime());
        }

        @Override
        public void expired(LockHandle handle) {
            lost.putIfAbsent(handle, System.nanoTime());
        }

        boolean reported(LockHandle handle) {
            return lost.containsKey(handle) || !handle.isHeld();
        }

        /** @return when the listener was told the lease was lost or expired, or {@link Long#MAX_VALUE} */
        long reportedAt(LockHandle handle) {
            return lost.getOrDefault(handle, Long.MAX_VALUE);
        }

        void forget(LockHandle handle) {
            lost.remove(handle);
        }
    }

    private final LockService service;

    private final Random random;

    private final BooleanSupplier stop;

    private final Sink sink;

    private final LostLeases lost;

    private final boolean sharedNames;

    private final Duration fixedLease;

    /**
     * @param sharedNames whether the store has permits ({@code StoreTraits.permits()}): then the loop also takes
     *        {@link #SHARED}
     * @param fixedLease the fixed lease of the holds that outlast it ({@code CampaignTopology.fixedLeaseMillis()})
     */
    LockLoop(LockService service, long seed, BooleanSupplier stop, Sink sink, LostLeases lost,
            boolean sharedNames, Duration fixedLease) {
        this.service = service;
        this.sharedNames = sharedNames;
        this.fixedLease = fixedLease;
        this.random = new Random(seed);
        this.stop = stop;
        this.sink = sink;
        this.lost = lost;
    }

    @Override
    public void run() {
        while (!stop.getAsBoolean()) {
            List<String> names = names();
            Duration wait = WAITS[random.nextInt(WAITS.length)];
            // Mostly short holds (up to 20 ms); one in two hundred lasts 1 to 8 s, past the 2 s lease (and past a
            // Sentinel failover plus a lease), so that faults land in the middle of holds the watchdog must renew.
            long holdMicros = random.nextInt(200) == 0 ? 1_000_000 + random.nextInt(7_000_000)
                    : random.nextInt(20_000);
            boolean fixed = random.nextInt(FIXED_ONE_IN) == 0;
            LockOptions options = LockOptions.defaults().withWaitTime(wait);
            if (fixed) {
                // Work that outlasts its fixed lease by 0.1 to 1.5 s.
                holdMicros = fixedLease.toNanos() / 1000 + 100_000 + random.nextInt(1_400_000);
                options = options.withLeaseTime(fixedLease);
            }
            if (names.equals(List.of(SHARED))) {
                options = options.withPermits(SHARED_PERMITS);
            }
            long called = System.nanoTime();
            Held held;
            try {
                held = acquire(names, options);
            }
            catch (RuntimeException ex) {
                sink.failed(ex);
                pause(random.nextInt(50));
                continue;
            }
            if (held == null) {
                sink.timedOut();
                continue;
            }
            long start = System.nanoTime();
            if (held.locks().stream().anyMatch(lost::reported)) {
                // Already lost when the work would begin (this node was frozen between the grant and here, past its
                // lease): an application that checks isHeld() does no work under it, and neither does this one.
                sink.failed(new LeaseLostException("Lease of " + names + " lost before its work began"));
                unlockQuietly(held);
                continue;
            }
            for (LockHandle handle : held.locks()) {
                long deadline = fixed ? System.nanoTime() + handle.remaining().toNanos() : Long.MAX_VALUE;
                sink.began(handle.name(), handle.fencingToken(), called, start, deadline, fixed);
            }
            long countedOnUntil = hold(held.locks(), holdMicros, fixed, start);
            long end = System.nanoTime();
            // Told of one lease's loss, the worker stops counting on all the locks of its turn (as an application
            // that checks MultiLockHandle.isHeld() would), so each is recorded as counted on until then.
            boolean reported = held.locks().stream().anyMatch(lost::reported);
            for (LockHandle handle : held.locks()) {
                sink.ended(handle.name(), handle.fencingToken(), called, start, end, reported,
                        reported ? countedOnUntil : end, fixed);
            }
            unlockQuietly(held);
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
    }

    /**
     * @return what this turn locks: mostly one of {@link #NAMES}; one turn in {@value #SEVERAL_ONE_IN} two of them
     *         together; one in {@value #SHARED_ONE_IN} the {@link #SHARED} name, where the store has permits
     */
    private List<String> names() {
        int draw = random.nextInt(SEVERAL_ONE_IN * SHARED_ONE_IN);
        if (draw < SHARED_ONE_IN && sharedNames) {
            return List.of(SHARED);
        }
        String first = NAMES.get(random.nextInt(NAMES.size()));
        if (draw % SEVERAL_ONE_IN == 1) {
            String second = NAMES.get((NAMES.indexOf(first) + 1 + random.nextInt(NAMES.size() - 1)) % NAMES.size());
            return List.of(first, second);
        }
        return List.of(first);
    }

    /** @return the locks taken, or null when the wait ran out */
    private @Nullable Held acquire(List<String> names, LockOptions options) {
        if (names.size() > 1) {
            return service.tryLockAll(names, options).map(all -> new Held(all.locks(), all::unlock)).orElse(null);
        }
        return service.tryLock(names.get(0), options).map(one -> new Held(List.of(one), one::unlock)).orElse(null);
    }

    /** The locks of one turn and how they are given back. */
    private record Held(List<LockHandle> locks, Runnable unlock) {
    }

    private void unlockQuietly(Held held) {
        try {
            held.unlock().run();
        }
        catch (RuntimeException ex) {
            sink.failed(ex);
        }
        held.locks().forEach(lost::forget);
    }

    /**
     * Works under the locks for that long, in steps of at most 10 ms, and stops as soon as the node is told a lease
     * is lost, as an application that checks {@link LockHandle#isHeld()} would; the work of a fixed lease that
     * outlasts it goes on, still looking.
     *
     * @return the last moment the worker was not told (the time taken before its last look that said held)
     */
    private long hold(List<LockHandle> handles, long holdMicros, boolean fixed, long start) {
        long end = System.nanoTime() + holdMicros * 1000;
        long countedOnUntil = start;
        boolean noticed = false;
        try {
            for (long left = holdMicros * 1000; left > 0; left = end - System.nanoTime()) {
                // Holding the lock for a while is the behaviour under test.
                TimeUnit.NANOSECONDS.sleep(Math.min(left, 10_000_000L));
                long look = System.nanoTime();
                if (handles.stream().noneMatch(lost::reported)) {
                    countedOnUntil = look;
                }
                else if (!noticed) {
                    // Every lock of the turn: the worker counts on none of them from now on (a fixed lease's work
                    // goes on, but a kill must not find one of them still counted on).
                    noticed = true;
                    for (LockHandle handle : handles) {
                        sink.lostNoticed(handle.name(), handle.fencingToken(), countedOnUntil);
                    }
                    if (!fixed) {
                        return countedOnUntil;
                    }
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return countedOnUntil;
    }

    /** Think time after a failure, as an application's retry would have; the pause is the behaviour. */
    private static void pause(int millis) {
        try {
            TimeUnit.MILLISECONDS.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
    }
}
