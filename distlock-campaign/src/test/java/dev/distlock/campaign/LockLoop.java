package dev.distlock.campaign;

import java.time.Duration;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.listener.LockListener;

/**
 * One worker of a node: takes a random lock name with a random wait, holds it (mostly for milliseconds, sometimes
 * for seconds), unlocks,
 * and reports every grant and failure to a {@link Sink}. The same loop runs in the test JVM and in child JVMs.
 * <p>
 * A grant counts as reported lost when the node's listener reported the lease lost or expired, or when
 * {@link LockHandle#isHeld()} is false: both are how the library tells an application that it no longer holds the
 * lock. While it works the worker looks every 10 ms, and the last moment it was not told (taken before the look) is
 * recorded: the history requires that no other holder began before it.
 * <p>
 * One hold in {@value #FIXED_ONE_IN} is on a fixed lease ({@link #FIXED_LEASE}, not renewed) whose work lasts longer
 * than the lease: the worker goes on working past it, as a job that overruns its lease would, and the history
 * accepts the overlap with the next holder only because the holder was told (expired, or {@code isHeld()} false)
 * before that holder began.
 */
final class LockLoop implements Runnable {

    /** The lock names every node competes for. */
    static final List<String> NAMES = List.of("c0", "c1", "c2");

    /** The fixed lease of the holds that outlast their lease: whole seconds, as etcd's leases are. */
    static final Duration FIXED_LEASE = Duration.ofSeconds(1);

    /** One hold in this many is on a fixed lease and outlasts it. */
    static final int FIXED_ONE_IN = 60;

    private static final Duration[] WAITS = { Duration.ZERO, Duration.ofMillis(200), Duration.ofSeconds(1),
            Duration.ofSeconds(3) };

    /** Where a loop reports. */
    interface Sink {

        /**
         * A grant, reported when the work under it begins (so that a crash in the middle still leaves a trace).
         *
         * @param fixed whether it is on a fixed lease that its work outlasts
         */
        void began(String name, long token, long startNanos, boolean fixed);

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
         * @param lost whether the loss (or a fixed lease's end) was reported by the end of the work
         * @param countedOnUntilNanos the last moment the worker was not told; {@code endNanos} when it never was
         * @param fixed whether the hold was on a fixed lease that its work outlasts
         */
        void ended(String name, long token, long startNanos, long endNanos, boolean lost, long countedOnUntilNanos,
                boolean fixed);

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

    LockLoop(LockService service, long seed, BooleanSupplier stop, Sink sink, LostLeases lost) {
        this.service = service;
        this.random = new Random(seed);
        this.stop = stop;
        this.sink = sink;
        this.lost = lost;
    }

    @Override
    public void run() {
        while (!stop.getAsBoolean()) {
            String name = NAMES.get(random.nextInt(NAMES.size()));
            Duration wait = WAITS[random.nextInt(WAITS.length)];
            // Mostly short holds (up to 20 ms); one in two hundred lasts 1 to 8 s, past the 2 s lease (and past a
            // Sentinel failover plus a lease), so that faults land in the middle of holds the watchdog must renew.
            long holdMicros = random.nextInt(200) == 0 ? 1_000_000 + random.nextInt(7_000_000)
                    : random.nextInt(20_000);
            boolean fixed = random.nextInt(FIXED_ONE_IN) == 0;
            LockOptions options = LockOptions.defaults().withWaitTime(wait);
            if (fixed) {
                // Work that outlasts its fixed lease by 0.1 to 1.5 s.
                holdMicros = FIXED_LEASE.toNanos() / 1000 + 100_000 + random.nextInt(1_400_000);
                options = options.withLeaseTime(FIXED_LEASE);
            }
            Optional<LockHandle> granted;
            try {
                granted = service.tryLock(name, options);
            }
            catch (RuntimeException ex) {
                sink.failed(ex);
                pause(random.nextInt(50));
                continue;
            }
            if (granted.isEmpty()) {
                sink.timedOut();
                continue;
            }
            LockHandle handle = granted.get();
            long start = System.nanoTime();
            if (lost.reported(handle)) {
                // Already lost when the work would begin (this node was frozen between the grant and here, past its
                // lease): an application that checks isHeld() does no work under it, and neither does this one.
                sink.failed(new LeaseLostException("Lease of '" + name + "' lost before its work began"));
                unlockQuietly(handle);
                continue;
            }
            sink.began(name, handle.fencingToken(), start, fixed);
            long countedOnUntil = hold(handle, name, holdMicros, fixed, start);
            long end = System.nanoTime();
            boolean reported = lost.reported(handle);
            sink.ended(name, handle.fencingToken(), start, end, reported, reported ? countedOnUntil : end, fixed);
            unlockQuietly(handle);
            if (Thread.currentThread().isInterrupted()) {
                return;
            }
        }
    }

    private void unlockQuietly(LockHandle handle) {
        try {
            handle.unlock();
        }
        catch (RuntimeException ex) {
            sink.failed(ex);
        }
        lost.forget(handle);
    }

    /**
     * Works under the lock for that long, in steps of at most 10 ms, and stops as soon as the node is told the lease
     * is lost, as an application that checks {@link LockHandle#isHeld()} would; the work of a fixed lease that
     * outlasts it goes on, still looking.
     *
     * @return the last moment the worker was not told (the time taken before its last look that said held)
     */
    private long hold(LockHandle handle, String name, long holdMicros, boolean fixed, long start) {
        long end = System.nanoTime() + holdMicros * 1000;
        long countedOnUntil = start;
        boolean noticed = false;
        try {
            for (long left = holdMicros * 1000; left > 0; left = end - System.nanoTime()) {
                // Holding the lock for a while is the behaviour under test.
                TimeUnit.NANOSECONDS.sleep(Math.min(left, 10_000_000L));
                long look = System.nanoTime();
                if (!lost.reported(handle)) {
                    countedOnUntil = look;
                }
                else if (!noticed) {
                    noticed = true;
                    sink.lostNoticed(name, handle.fencingToken(), countedOnUntil);
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
