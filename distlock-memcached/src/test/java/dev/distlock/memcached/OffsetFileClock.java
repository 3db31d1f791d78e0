package dev.distlock.memcached;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;

/**
 * A campaign node's wall clock: the system's plus an offset in µs that the nemesis writes to a file
 * ({@link HolderClock}). A daemon thread re-reads the file every {@value #POLL_MILLIS} ms, so that a read of this
 * clock on the lock path costs the system clock and a volatile read; a change shows within a poll (more under load).
 * The JVM's own clock is left alone: libfaketime slows a JVM down 9 to 14 times, which would change the very timing
 * the campaign tests. Only the Memcached store reads the holder's wall clock for its leases and tokens, so the class
 * lives here.
 */
final class OffsetFileClock extends Clock implements AutoCloseable {

    static final long POLL_MILLIS = 2;

    private final Path file;

    private final ScheduledExecutorService poller;

    private volatile long offsetMicros;

    private OffsetFileClock(Path file) {
        this.file = file;
        this.poller = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "offset-clock-" + file.getFileName());
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * @param file a file holding the offset in µs, as {@link HolderClock} writes it
     * @return the clock, its offset read once already
     */
    static OffsetFileClock watch(Path file) {
        OffsetFileClock clock = new OffsetFileClock(file);
        clock.read();
        clock.poller.scheduleWithFixedDelay(clock::read, POLL_MILLIS, POLL_MILLIS, TimeUnit.MILLISECONDS);
        return clock;
    }

    private void read() {
        try {
            String text = Files.readString(file, StandardCharsets.US_ASCII).trim();
            if (!text.isEmpty()) {
                offsetMicros = Long.parseLong(text);
            }
        }
        catch (IOException | NumberFormatException ex) {
            // The file is replaced whole, so a read sees an old or a new one; gone only at the end of the run:
            // the clock keeps its last offset.
        }
    }

    /** @return the offset in µs, as last read */
    long offsetMicros() {
        return offsetMicros;
    }

    @Override
    public Instant instant() {
        return Instant.now().plusNanos(offsetMicros * 1000);
    }

    @Override
    public ZoneId getZone() {
        return ZoneOffset.UTC;
    }

    /** Only UTC: the store reads instants, and a zone would not change them. */
    @Override
    public Clock withZone(ZoneId zone) {
        if (!ZoneOffset.UTC.equals(zone)) {
            throw new UnsupportedOperationException("An offset file clock is in UTC only: " + zone);
        }
        return this;
    }

    @Override
    public void close() {
        poller.shutdownNow();
    }
}
