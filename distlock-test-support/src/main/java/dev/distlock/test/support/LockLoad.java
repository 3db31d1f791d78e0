package dev.distlock.test.support;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;

/**
 * Threads on several nodes that take one lock in a loop and record every grant in a {@link LockHistory}, while a
 * test breaks the servers underneath: counts what was refused (fail closed) and when locking worked last.
 */
public final class LockLoad implements AutoCloseable {

    private final LockHistory history;

    private final AtomicBoolean stop = new AtomicBoolean();

    private final AtomicInteger unavailable = new AtomicInteger();

    private final AtomicInteger timeouts = new AtomicInteger();

    private final AtomicLong lastGrantNanos = new AtomicLong();

    private final ExecutorService pool;

    private final List<Future<?>> workers = new ArrayList<>();

    /**
     * Starts {@code threadsPerNode} threads on each node.
     *
     * @param history where grants are recorded
     * @param name the lock name
     * @param threadsPerNode threads per node
     * @param nodes the nodes
     */
    public LockLoad(LockHistory history, String name, int threadsPerNode, LockService... nodes) {
        this.history = history;
        this.pool = Executors.newFixedThreadPool(threadsPerNode * nodes.length);
        for (int n = 0; n < nodes.length; n++) {
            for (int t = 0; t < threadsPerNode; t++) {
                LockService node = nodes[n];
                String holder = "node-" + n + "/thread-" + t;
                workers.add(pool.submit(() -> run(node, name, holder)));
            }
        }
    }

    /**
     * Locks once, as soon as the node's first connection (found through Sentinel or Cluster, say) is up.
     *
     * @param node the node
     */
    public static void warmUp(LockService node) {
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(20))
                .ignoreExceptionsInstanceOf(LockUnavailableException.class)
                .untilAsserted(() -> node.lock("warm").unlock());
    }

    private void run(LockService node, String name, String holder) {
        while (!stop.get()) {
            try (LockHandle handle = node.lock(name)) {
                history.hold(holder, handle, () -> spin(Duration.ofMillis(5)));
                lastGrantNanos.set(System.nanoTime());
            }
            catch (LockUnavailableException ex) {
                unavailable.incrementAndGet(); // failed closed: nothing ran
            }
            catch (LockTimeoutException ex) {
                timeouts.incrementAndGet();
            }
            catch (RuntimeException ex) {
                // e.g. LeaseLostException on release with on-lease-lost=throw: the history has the grant
            }
        }
    }

    /** Work inside the lock, without sleeping (a sleep would hide scheduling effects). */
    private static void spin(Duration work) {
        long end = System.nanoTime() + work.toNanos();
        while (System.nanoTime() < end) {
            Thread.onSpinWait();
        }
    }

    /** @return the grants recorded so far */
    public int grants() {
        return history.grants().size();
    }

    /** @return the calls that failed closed ({@code LockUnavailableException}) */
    public int unavailable() {
        return unavailable.get();
    }

    /** @return the calls that timed out waiting */
    public int timeouts() {
        return timeouts.get();
    }

    /** @return the {@link System#nanoTime()} of the latest grant's end, 0 before the first */
    public long lastGrantNanos() {
        return lastGrantNanos.get();
    }

    /** Stops the threads, after their current lock, and waits for them (at most a minute each). */
    @Override
    public void close() throws Exception {
        stop.set(true);
        for (Future<?> worker : workers) {
            worker.get(60, TimeUnit.SECONDS);
        }
        pool.shutdown();
    }
}
