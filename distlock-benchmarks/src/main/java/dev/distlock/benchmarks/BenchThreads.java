package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Runs a measurement's threads together for a fixed time: workload S and its raw cycles (R) share it, so that both
 * sides of their ratios start, stop and count alike.
 */
final class BenchThreads {

    private BenchThreads() {
    }

    /** One thread's loop: runs until {@code end} ({@link System#nanoTime()}). */
    interface Worker {
        void run(int thread, long end) throws Exception;
    }

    /** One lock cycle (acquire and release) on a name. */
    interface Cycle {
        void run(String name) throws Exception;
    }

    /**
     * Runs lock cycles of a new name each ({@code prefix}, the thread, the cycle's number) on that many threads for
     * {@code duration}: S's and R's uncontended measurement alike. A failed cycle is counted, the first one printed.
     *
     * @return the nanoseconds the threads ran; each thread's cycle latencies go to a recorder added to {@code into}
     */
    static long cycles(int threads, Duration duration, String prefix, Cycle cycle, List<LatencyRecorder> into,
            AtomicLong errors) throws Exception {
        AtomicReference<Throwable> firstError = new AtomicReference<>();
        List<LatencyRecorder> recorders = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            recorders.add(new LatencyRecorder());
        }
        long nanos = together(threads, duration, (t, end) -> {
            String mine = prefix + t + ":";
            LatencyRecorder recorder = recorders.get(t);
            for (long i = 0; ; i++) {
                long start = System.nanoTime();
                if (start >= end) {
                    return;
                }
                try {
                    cycle.run(mine + i);
                    recorder.record(System.nanoTime() - start);
                }
                catch (Exception ex) {
                    errors.incrementAndGet();
                    firstError.compareAndSet(null, ex);
                }
            }
        });
        if (firstError.get() != null) {
            System.err.println("  " + errors.get() + " failed cycles, first: " + firstError.get());
        }
        into.addAll(recorders);
        return nanos;
    }

    /**
     * Runs the worker on that many threads, started together, until {@code duration} from the start.
     *
     * @return the nanoseconds from the start until the last thread finished
     */
    static long together(int threads, Duration duration, Worker worker) throws Exception {
        CountDownLatch ready = new CountDownLatch(threads);
        CountDownLatch go = new CountDownLatch(1);
        long[] end = new long[1];
        AtomicReference<Throwable> failure = new AtomicReference<>();
        List<Thread> all = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            Thread th = new Thread(() -> {
                ready.countDown();
                try {
                    go.await();
                    worker.run(thread, end[0]);
                }
                catch (Throwable ex) {
                    failure.compareAndSet(null, ex);
                }
            }, "bench-store-" + t);
            th.setDaemon(true);
            th.start();
            all.add(th);
        }
        ready.await();
        long start = System.nanoTime();
        end[0] = start + duration.toNanos();
        go.countDown();
        for (Thread th : all) {
            th.join();
        }
        if (failure.get() != null) {
            throw new IllegalStateException("A benchmark thread failed", failure.get());
        }
        return System.nanoTime() - start;
    }
}
