package dev.distlock.jdbc;

import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntUnaryOperator;

import dev.distlock.LockUnavailableException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the lock table bounded, as Redis keys expire: on a daemon thread of its own, every half row retention (at
 * most every minute), deletes the rows of names whose last lease ended longer ago than the retention, in batches
 * so that no statement holds many row locks. Every node sweeps (a delete is idempotent, the batches are small);
 * the first sweep comes after a random part of the interval, so that nodes started together do not sweep in step.
 * A database that cannot be reached only delays the next sweep: the lock path reports it. Sweeps that keep failing
 * (a user without {@code DELETE}) are reported with a WARN, since nothing else would show the table growing. The
 * rows of permits need no sweep of their own ({@link PermitRows}): a free slot row goes like a lock's row, and a
 * name row marked for permits only once its lease, which outlasts every holder's, ended longer ago than the
 * retention.
 */
final class RowSweeper implements AutoCloseable {

    /** Rows per delete statement. */
    static final int BATCH = 1_000;

    /** Batches per sweep at most: a sweep ends even when rows are freed faster than it deletes them. */
    private static final int MAX_BATCHES = 100;

    private static final Duration MAX_INTERVAL = Duration.ofMinutes(1);

    /** Sweeps failed in a row after which a WARN says so (once per streak). */
    static final int FAILURES_WORTH_A_WARNING = 3;

    private static final Logger log = LoggerFactory.getLogger(JdbcLockStore.class);

    private final IntUnaryOperator deleteBatch;

    private final long intervalMillis;

    private final AtomicInteger failuresInARow = new AtomicInteger();

    private @Nullable ScheduledExecutorService scheduler;

    private boolean closed;

    /**
     * @param deleteBatch deletes at most the given number of expired rows and returns how many it deleted
     * @param rowRetention how long a free row stays
     */
    RowSweeper(IntUnaryOperator deleteBatch, Duration rowRetention) {
        this.deleteBatch = deleteBatch;
        this.intervalMillis = Math.max(1, Math.min(MAX_INTERVAL.toMillis(), rowRetention.toMillis() / 2));
    }

    /** Starts sweeping (once; not after {@link #close()}). */
    synchronized void start() {
        if (scheduler != null || closed) {
            return;
        }
        ScheduledExecutorService started = Executors.newSingleThreadScheduledExecutor(runnable -> {
            Thread thread = new Thread(runnable, "distlock-jdbc-row-sweeper");
            thread.setDaemon(true);
            return thread;
        });
        long first = intervalMillis / 2 + ThreadLocalRandom.current().nextLong(intervalMillis / 2 + 1);
        started.scheduleWithFixedDelay(this::sweep, first, intervalMillis, TimeUnit.MILLISECONDS);
        scheduler = started;
    }

    /** @return the rows deleted by one sweep (before a failure, if it failed) */
    int sweep() {
        int deleted = 0;
        try {
            for (int batch = 0; batch < MAX_BATCHES; batch++) {
                int rows = deleteBatch.applyAsInt(BATCH);
                deleted += rows;
                if (rows < BATCH) {
                    break;
                }
            }
        }
        catch (LockUnavailableException ex) {
            // A database that cannot be reached is the lock path's news; one that keeps refusing the delete (a
            // user without DELETE on the table) is only ever seen here, and the table then grows without end.
            if (failuresInARow.incrementAndGet() == FAILURES_WORTH_A_WARNING) {
                log.warn("Could not delete expired lock rows {} sweeps in a row, so the lock table grows meanwhile "
                        + "(does the database user have DELETE on it?): {}", FAILURES_WORTH_A_WARNING,
                        ex.getMessage());
            }
            else {
                log.debug("Could not delete expired lock rows, trying again at the next sweep: {}", ex.getMessage());
            }
            return deleted;
        }
        catch (RuntimeException ex) {
            failuresInARow.incrementAndGet();
            log.warn("Could not delete expired lock rows, trying again at the next sweep", ex);
            return deleted;
        }
        if (failuresInARow.getAndSet(0) >= FAILURES_WORTH_A_WARNING) {
            log.info("Deleting expired lock rows works again");
        }
        if (deleted > 0) {
            log.debug("Deleted {} lock rows free for longer than the row retention", deleted);
        }
        return deleted;
    }

    /** Stops sweeping; a sweep under way ends with its current statement. */
    @Override
    public synchronized void close() {
        closed = true;
        if (scheduler != null) {
            scheduler.shutdownNow();
        }
    }
}
