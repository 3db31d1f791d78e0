package dev.distlock.benchmarks;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.benchmarks.LockContender.Held;
import dev.distlock.benchmarks.LockContender.LockClient;

/**
 * The threads that take, count and release the many locks of workload L ({@link HeldLocksWorkload}), each its own
 * share, since a Redisson lock belongs to the thread that took it. Keeps what holds each lock, as an application
 * would.
 */
final class HeldLockOwners implements AutoCloseable {

    /** How many threads take the locks. */
    static final int THREADS = 4;

    private final List<ExecutorService> threads = new ArrayList<>();

    private final List<List<Held>> held = new ArrayList<>();

    /** @param capacity how many locks will be held: the lists are sized now, so that they are in the baseline */
    HeldLockOwners(int capacity) {
        for (int t = 0; t < THREADS; t++) {
            threads.add(Executors.newSingleThreadExecutor());
            held.add(new ArrayList<>(capacity / THREADS + 1));
        }
    }

    /**
     * Takes every {@value #THREADS}th name on each thread and keeps what holds it.
     *
     * @return how many acquires failed (the first failure is printed)
     */
    long acquire(LockClient client, String[] names) throws Exception {
        return sum(t -> () -> {
            long failed = 0;
            for (int i = t; i < names.length; i += THREADS) {
                try {
                    held.get(t).add(client.acquire(names[i]));
                }
                catch (Exception ex) {
                    if (failed++ == 0) {
                        System.err.println("  L acquire of " + names[i] + " failed: " + ex);
                    }
                }
            }
            return failed;
        });
    }

    /** @return how many locks are held (taken and not released) */
    long size() {
        return held.stream().mapToLong(List::size).sum();
    }

    /** @return how many of the held locks the library still says it holds */
    long stillHeld() throws Exception {
        return sum(t -> () -> held.get(t).stream().filter(Held::stillHeld).count());
    }

    /** Releases every held lock and forgets it (Redisson refuses a second unlock). */
    void releaseAll() throws Exception {
        sum(t -> () -> {
            held.get(t).forEach(Held::release);
            held.get(t).clear();
            return 0L;
        });
    }

    private interface PerThread {
        Callable<Long> task(int thread);
    }

    /** Runs one task on each thread, waits for all, and adds up their answers. */
    private long sum(PerThread work) throws Exception {
        List<Future<Long>> futures = new ArrayList<>();
        for (int t = 0; t < THREADS; t++) {
            futures.add(threads.get(t).submit(work.task(t)));
        }
        long sum = 0;
        for (Future<Long> future : futures) {
            sum += future.get(30, TimeUnit.MINUTES);
        }
        return sum;
    }

    @Override
    public void close() {
        threads.forEach(ExecutorService::shutdownNow);
    }
}
