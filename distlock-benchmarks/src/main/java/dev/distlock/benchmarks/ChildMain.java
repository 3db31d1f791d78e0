package dev.distlock.benchmarks;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.benchmarks.LockContender.LockClient;

/**
 * One child JVM of workloads B2 and G, started by {@link ChildProcesses} with the harness's own class path:
 * {@code ChildMain <contender> <host:port> <lock name> <jvm index> <threads> <work ns> <shared file> <result file>}.
 * <p>
 * Protocol on stdin/stdout: the child connects one client instance (shared by its threads, as one application
 * node would), locks and unlocks a name of its own a few times, prints {@code READY <its System.nanoTime()> <failed warm-up calls> <first failure>}, waits for {@code GO <start> <measure from>
 * <measure to>} (times on its own clock), runs its threads until {@code measure to}, writes a {@link ChildResult}
 * and prints {@code DONE}. It halts when its stdin closes, so no child outlives the harness.
 */
public final class ChildMain {

    private static final int WARM_UP_CYCLES = 50;

    private static final long WARM_UP_LIMIT_NANOS = 60_000_000_000L;

    private ChildMain() {
    }

    /**
     * Entry point of a child.
     *
     * @param args see the class comment
     * @throws Exception when the child cannot run
     */
    public static void main(String[] args) throws Exception {
        LockContender contender = Contenders.all().get(args[0]);
        RedisTarget target = RedisTarget.parse(args[1]);
        String name = args[2];
        int jvm = Integer.parseInt(args[3]);
        int threads = Integer.parseInt(args[4]);
        long workNanos = Long.parseLong(args[5]);
        Path result = Path.of(args[7]);
        BufferedReader stdin = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        try (SharedSlots slots = SharedSlots.open(Path.of(args[6]));
                LockClient client = contender.connect(target, null)) {
            // Connections are made lazily and scripts loaded on first use: do that here, on a name of this child's
            // own, so that the first timed grant does not pay for it (nor time out on it on a loaded machine).
            // A failure here (e.g. a first call slower than a client's timeout while several JVMs start on a busy
            // machine) is reported to the parent, not fatal.
            int failures = 0;
            String firstFailure = "";
            long warmUpEnd = System.nanoTime() + WARM_UP_LIMIT_NANOS;
            for (int done = 0; done < WARM_UP_CYCLES && System.nanoTime() < warmUpEnd;) {
                try {
                    client.runLocked(name + ":warm-up:" + jvm, () -> {
                    });
                    done++;
                }
                catch (Exception ex) {
                    failures++;
                    firstFailure = firstFailure.isEmpty() ? ex.toString().replace('\n', ' ') : firstFailure;
                }
            }
            System.out.println("READY " + System.nanoTime() + " " + failures + " " + firstFailure);
            System.out.flush();
            String go = stdin.readLine();
            if (go == null || !go.startsWith("GO ")) {
                Runtime.getRuntime().halt(2);
            }
            String[] times = go.split(" ");
            haltWhenParentGoes(stdin);
            Loop loop = new Loop(client, slots, name, jvm, threads, workNanos, Long.parseLong(times[1]),
                    Long.parseLong(times[2]), Long.parseLong(times[3]));
            loop.run().write(result);
            System.out.println("DONE");
            System.out.flush();
        }
        System.exit(0); // library threads (Redisson, Netty) must not keep the JVM alive
    }

    private static void haltWhenParentGoes(BufferedReader stdin) {
        Thread watcher = new Thread(() -> {
            try {
                while (stdin.readLine() != null) {
                    // the parent sends nothing more; end of stream means it is gone
                }
            }
            catch (Exception ex) {
                // same as end of stream
            }
            Runtime.getRuntime().halt(3);
        }, "parent-watcher");
        watcher.setDaemon(true);
        watcher.start();
    }

    /** The threads of one child, each locking the one name in a loop until the window ends. */
    private static final class Loop {

        private final LockClient client;

        private final SharedSlots slots;

        private final String name;

        private final int jvm;

        private final int threads;

        private final long workNanos;

        private final long start;

        private final long measureFrom;

        private final long measureTo;

        private final AtomicLong ownerChanges = new AtomicLong();

        private final AtomicLong jvmChanges = new AtomicLong();

        private final AtomicLong violations = new AtomicLong();

        private final AtomicLong errors = new AtomicLong();

        private final AtomicReference<String> firstError = new AtomicReference<>("");

        Loop(LockClient client, SharedSlots slots, String name, int jvm, int threads, long workNanos, long start,
                long measureFrom, long measureTo) {
            this.client = client;
            this.slots = slots;
            this.name = name;
            this.jvm = jvm;
            this.threads = threads;
            this.workNanos = workNanos;
            this.start = start;
            this.measureFrom = measureFrom;
            this.measureTo = measureTo;
        }

        ChildResult run() throws InterruptedException {
            long[] acquisitions = new long[threads];
            List<LatencyRecorder> waits = new ArrayList<>();
            List<Thread> workers = new ArrayList<>();
            for (int t = 0; t < threads; t++) {
                int index = t;
                LatencyRecorder recorder = new LatencyRecorder();
                waits.add(recorder);
                Thread worker = new Thread(() -> work(index, acquisitions, recorder), "child-" + jvm + "-" + t);
                worker.setDaemon(true);
                workers.add(worker);
                worker.start();
            }
            for (Thread worker : workers) {
                worker.join();
            }
            LatencyRecorder merged = new LatencyRecorder();
            waits.forEach(merged::addAll);
            return new ChildResult(acquisitions, ownerChanges.get(), jvmChanges.get(), violations.get(),
                    errors.get(), firstError.get(), merged);
        }

        private void work(int index, long[] acquisitions, LatencyRecorder waits) {
            long me = (long) jvm * threads + index;
            long now;
            while ((now = System.nanoTime()) < start) {
                LockSupport.parkNanos(Math.min(start - now, 1_000_000));
            }
            while (true) {
                long asked = System.nanoTime();
                if (asked >= measureTo) {
                    return;
                }
                try {
                    client.runLocked(name, () -> inside(me, asked, index, acquisitions, waits));
                }
                catch (Throwable ex) {
                    errors.incrementAndGet();
                    firstError.compareAndSet("", ex.toString());
                }
            }
        }

        /** Runs while holding the lock: checks exclusion, counts the grant, does the work. */
        private void inside(long me, long asked, int index, long[] acquisitions, LatencyRecorder waits) {
            long acquiredAt = System.nanoTime();
            if (slots.enter() != 0) {
                violations.incrementAndGet();
            }
            long previous = slots.swapOwner(me);
            if (acquiredAt >= measureFrom && acquiredAt < measureTo) {
                acquisitions[index]++;
                waits.record(acquiredAt - asked);
                if (previous != me) {
                    ownerChanges.incrementAndGet();
                }
                if (previous < 0 || previous / threads != jvm) {
                    jvmChanges.incrementAndGet();
                }
            }
            if (workNanos > 0) {
                long until = acquiredAt + workNanos;
                while (System.nanoTime() < until) {
                    Thread.onSpinWait(); // busy work, as a CPU-bound critical section would be (not a sleep)
                }
            }
            else {
                Thread.onSpinWait();
            }
            if (slots.inside() != 1) {
                violations.incrementAndGet();
            }
            slots.leave();
        }
    }
}
