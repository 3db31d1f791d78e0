package dev.distlock.memcached;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;

/**
 * The nemesis' side of one campaign node's wall clock: its offset from the machine's clock in µs, written to the
 * file that the node's {@link OffsetFileClock} reads. {@link #step} moves it, {@link #drift} moves it in a step every
 * {@value #TICK_MILLIS} ms; both stop at the band, {@code ±bandMicros}, so that any two readings of the nodes' clocks
 * (two nodes' at one moment, or one node's then and another's later) are at most twice the band apart.
 */
final class HolderClock implements AutoCloseable {

    static final long TICK_MILLIS = 10;

    private final String node;

    private final Path file;

    private final long bandMicros;

    private final ScheduledExecutorService ticker;

    private long offsetMicros;

    private @Nullable ScheduledFuture<?> drifting;

    private HolderClock(String node, Path file, long bandMicros) {
        this.node = node;
        this.file = file;
        this.bandMicros = bandMicros;
        this.ticker = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "holder-clock-" + node);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * @param node the campaign node, for messages
     * @param bandMicros how far its clock may be off the machine's, either way
     * @return its clock, on the machine's time, in a new file
     */
    static HolderClock create(String node, long bandMicros) {
        try {
            Path file = Files.createTempFile("distlock-holder-clock-" + node.replace('/', '-'), ".offset");
            file.toFile().deleteOnExit();
            HolderClock clock = new HolderClock(node, file, bandMicros);
            clock.write();
            return clock;
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /** @return the file its node's {@link OffsetFileClock} reads */
    Path file() {
        return file;
    }

    /** @return the node */
    String node() {
        return node;
    }

    /** @return how far it may be off the machine's clock, either way, in µs */
    long bandMicros() {
        return bandMicros;
    }

    /**
     * @param micros by how much, back when negative
     * @return by how much it was stepped: less than asked for at the band's edge
     */
    synchronized long step(long micros) {
        long next = Math.max(-bandMicros, Math.min(bandMicros, offsetMicros + micros));
        long done = next - offsetMicros;
        offsetMicros = next;
        write();
        return done;
    }

    /**
     * Lets it run at another rate until {@link #stopDrift()} (up to the band's edge).
     *
     * @param rate how much faster it runs, e.g. 0.05 for 5 % fast, -0.05 for 5 % slow
     */
    synchronized void drift(double rate) {
        stopDrift();
        long[] last = { System.nanoTime() };
        drifting = ticker.scheduleAtFixedRate(() -> {
            long now = System.nanoTime();
            long micros = Math.round((now - last[0]) / 1000.0 * rate);
            if (micros != 0) {
                last[0] = now;
                step(micros);
            }
        }, TICK_MILLIS, TICK_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Ends a drift: the clock keeps the offset it reached, as a host's clock does. */
    synchronized void stopDrift() {
        if (drifting != null) {
            drifting.cancel(false);
            drifting = null;
        }
    }

    /** @return its offset from the machine's clock, in µs */
    synchronized long offsetMicros() {
        return offsetMicros;
    }

    private void write() {
        try {
            Path next = file.resolveSibling(file.getFileName() + ".next");
            Files.writeString(next, offsetMicros + "\n", StandardCharsets.US_ASCII);
            Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not write the clock of " + node + " to " + file, ex);
        }
    }

    /** Stops any drift; the file goes when this JVM exits (a child JVM may read it until then). */
    @Override
    public synchronized void close() {
        stopDrift();
        ticker.shutdownNow();
    }
}
