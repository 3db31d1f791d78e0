package dev.distlock;

import java.util.List;

/**
 * Several locks taken together, all or none ({@link LockService#tryLockAll}): e.g. the two accounts of a transfer.
 * The names were taken in one global order (sorted, duplicates removed), so two callers asking for {@code {a, b}}
 * and {@code {b, a}} never deadlock.
 */
public interface MultiLockHandle extends AutoCloseable {

    /** @return one handle per distinct name, in the order taken; each has its own fencing token */
    List<LockHandle> locks();

    /** @return whether every one of the locks is still held */
    boolean isHeld();

    /**
     * Releases every lock, the last taken first. Idempotent. Each release behaves as {@link LockHandle#unlock()};
     * when one throws, the others are still released and the first exception is thrown with the rest suppressed.
     */
    void unlock();

    /** Same as {@link #unlock()}. */
    @Override
    default void close() {
        unlock();
    }
}
