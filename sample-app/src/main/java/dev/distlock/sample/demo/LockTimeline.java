package dev.distlock.sample.demo;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.sample.stock.InsufficientStockException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.dao.DataAccessException;
import org.springframework.scheduling.annotation.Scheduled;
import org.springframework.stereotype.Component;

/**
 * Records, for the sample page, when each call asked for a lock, when the locked method's body started (the lock
 * is held) and when it ended.
 * <p>
 * The caller wraps the call in {@link #track}, which notes the request time; the locked method's body calls
 * {@link #entered()} first and {@link #left()} in a {@code finally}: the body is the critical section the page
 * draws, since it runs strictly inside the lock (the lock advice is outermost; the transaction commits and the lock
 * is released just after the body). The fencing token is the one {@link LockContext#current()} holds for the lock.
 * The lock's own grant and release, around the body, come from the lock service's listener
 * ({@link TimelineLockListener} calls {@link #lockGranted} and {@link #lockReleased} on the caller's thread): the
 * benchmark of the flash sale measures how long the lock is held and the gaps between holders with them.
 * <p>
 * Keeps the hot path light: a clock read and a thread-local per step, then one offer to a bounded in-memory queue.
 * A scheduled task writes the queue to the shared database in one batch every {@value #FLUSH_MILLIS} ms, where the
 * page of any instance reads the merged history ({@link TimelineRepository}). Entries that do not fit in the queue
 * (the database stalled for long) are dropped and counted, never waited for. It also counts each deduction's
 * outcome in the meter {@code sample.deductions} (tags {@code result}, {@code lock} = {@code held}/{@code none}),
 * the page's throughput chart.
 */
@Component
public class LockTimeline {

    /** How often the buffered entries go to the database. */
    static final int FLUSH_MILLIS = 200;

    private static final int BUFFER = 20_000;

    private static final Logger log = LoggerFactory.getLogger(LockTimeline.class);

    private static final ThreadLocal<Call> CURRENT = new ThreadLocal<>();

    private final InstanceRegistry instance;

    private final TimelineRepository repository;

    private final MeterRegistry meters;

    private final BlockingQueue<Hold> buffer = new ArrayBlockingQueue<>(BUFFER);

    private final AtomicLong dropped = new AtomicLong();

    private long lastTrim;

    /**
     * @param instance this instance's id
     * @param repository where the entries go
     * @param meters for the {@code sample.deductions} counter
     */
    public LockTimeline(InstanceRegistry instance, TimelineRepository repository, MeterRegistry meters) {
        this.instance = instance;
        this.repository = repository;
        this.meters = meters;
    }

    /**
     * Runs a call that takes a lock, and records it.
     *
     * @param lockName the lock the call takes, e.g. {@code stock:1}
     * @param success the outcome to record when the call returns, e.g. {@code sold}
     * @param call the call; its locked method's body calls {@link #entered()} and {@link #left()}
     * @param <T> the call's result
     * @return what the call returned
     */
    public <T> T track(String lockName, String success, Supplier<T> call) {
        Call outer = CURRENT.get();
        Call current = new Call(lockName, Micros.now());
        CURRENT.set(current);
        String outcome = "error";
        try {
            T result = call.get();
            outcome = success;
            return result;
        }
        catch (InsufficientStockException ex) {
            outcome = "sold-out";
            throw ex;
        }
        catch (LockTimeoutException ex) {
            outcome = "timeout";
            throw ex;
        }
        catch (LockUnavailableException ex) {
            outcome = "unavailable";
            throw ex;
        }
        finally {
            CURRENT.set(outer);
            record(current, outcome);
        }
    }

    /** Called first thing in a locked method's body: the lock is held from now on. */
    public void entered() {
        Call call = CURRENT.get();
        if (call != null && call.acquiredAt == 0) {
            call.acquiredAt = Micros.now();
            call.fencingToken = LockContext.current().filter(h -> h.name().equals(call.lockName))
                    .map(LockHandle::fencingToken).orElse(0L);
        }
    }

    /**
     * The lock service granted a lock to this thread: noted when it is the tracked call's lock and the first grant.
     *
     * @param lockName the lock granted
     */
    void lockGranted(String lockName) {
        Call call = CURRENT.get();
        if (call != null && call.lockGrantedAt == 0 && call.lockName.equals(lockName)) {
            call.lockGrantedAt = Micros.now();
        }
    }

    /**
     * The lock service's release of a lock returned on this thread: noted when it is the tracked call's lock, granted
     * before.
     *
     * @param lockName the lock released
     */
    void lockReleased(String lockName) {
        Call call = CURRENT.get();
        if (call != null && call.lockGrantedAt != 0 && call.lockReleasedAt == 0 && call.lockName.equals(lockName)) {
            call.lockReleasedAt = Micros.now();
        }
    }

    /** Called last thing in a locked method's body (in a {@code finally}): the lock is about to be released. */
    public void left() {
        Call call = CURRENT.get();
        if (call != null && call.acquiredAt != 0 && call.releasedAt == 0) {
            call.releasedAt = Micros.now();
        }
    }

    /** Writes what was recorded since the last flush, in one batch; trims the history now and then. */
    @Scheduled(fixedDelay = FLUSH_MILLIS, initialDelay = FLUSH_MILLIS)
    public void flush() {
        List<Hold> batch = new ArrayList<>(Math.min(buffer.size(), BUFFER));
        buffer.drainTo(batch);
        try {
            if (!batch.isEmpty()) {
                repository.insert(batch);
            }
            long now = System.currentTimeMillis();
            if (now - lastTrim > 10_000) {
                lastTrim = now;
                repository.trim(Micros.now() - instance.history().toNanos() / 1_000);
            }
        }
        catch (DataAccessException ex) {
            dropped.addAndGet(batch.size());
            log.warn("Lock timeline: {} entries not written ({})", batch.size(), ex.getMessage());
        }
        long lost = dropped.getAndSet(0);
        if (lost > 0) {
            log.warn("Lock timeline: {} entries dropped; the sample page's timeline misses them", lost);
        }
    }

    private void record(Call call, String outcome) {
        boolean held = call.acquiredAt != 0;
        long end = held && call.releasedAt != 0 ? call.releasedAt : Micros.now();
        boolean granted = call.lockGrantedAt != 0;
        Hold hold = new Hold(instance.id(), call.lockName, call.fencingToken, call.requestedAt,
                held ? call.acquiredAt : null, end, outcome, false, granted ? call.lockGrantedAt : null,
                granted && call.lockReleasedAt != 0 ? call.lockReleasedAt : null);
        if (!buffer.offer(hold)) {
            dropped.incrementAndGet();
        }
        if (!"restock".equals(outcome)) {
            deductions(outcome, call.fencingToken != 0).increment();
        }
    }

    private Counter deductions(String outcome, boolean locked) {
        // The registry caches meters by name and tags: no new meter per call.
        return Counter.builder("sample.deductions").description("Deduct calls of the sample, by outcome")
                .tag("result", outcome).tag("lock", locked ? "held" : "none").register(meters);
    }

    /** One tracked call on this thread. */
    private static final class Call {

        final String lockName;

        final long requestedAt;

        long acquiredAt;

        long releasedAt;

        long lockGrantedAt;

        long lockReleasedAt;

        long fencingToken;

        Call(String lockName, long requestedAt) {
            this.lockName = lockName;
            this.requestedAt = requestedAt;
        }
    }
}
