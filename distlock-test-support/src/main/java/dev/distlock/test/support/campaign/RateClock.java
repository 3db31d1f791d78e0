package dev.distlock.test.support.campaign;

import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wall clock of a multi-threaded store process (MariaDB's {@code mariadbd}), faked by libfaketime with settings
 * fixed for the life of each process: it runs at a constant rate, and keeps its offset across restarts.
 * <p>
 * Why not a {@link FakedClock}, whose file the nemesis rewrites: Debian's libfaketime (0.9.10) re-reads its settings
 * into buffers that all threads share, without a lock. With {@code FAKETIME_NO_CACHE} every clock call re-reads them,
 * and a thread that parses while another rewrites them reads a cut-off offset, down to none: the machine's own time.
 * Three sessions of 20,000 {@code SYSDATE(6)} reads each on one {@code mariadbd} read the clock 10 s off 110 times
 * with a constant offset of 10 s (as far off as a clock 0.9 % fast is after 19 minutes); a single session, or the
 * library's cache, never did. A statement that reads such a time writes a lease that has already ended, and the next
 * statement takes the row: most likely the two holders the campaign's MariaDB run of seed 20261130 recorded.
 * Single-threaded servers (each PostgreSQL backend, Redis's event loop) read their clock on one thread and keep the
 * nemesis' {@link FakedClock}.
 * <p>
 * Here the settings are the environment ({@code FAKETIME="+offset xrate"}), read once at the process's start, and the
 * cache never expires ({@code FAKETIME_CACHE_DURATION}), so no thread ever re-reads them. The price: the clock cannot
 * be stepped or made to drift while the process runs, only run at its rate. {@code MariaDbClockTests} reads the clock
 * on three server threads at once (it failed with {@link FakedClock}'s settings).
 */
public final class RateClock {

    private static final Logger log = LoggerFactory.getLogger(RateClock.class);

    /** Longer than any run: the library never re-reads the settings it read at the start. */
    private static final String NEVER_EXPIRES = "1000000000";

    private final Path library;

    private final double rate;

    /** The offset from the machine's clock at {@link #startedNanos}, in µs. */
    private long offsetMicros;

    private long startedNanos = System.nanoTime();

    private RateClock(Path library, long offsetMicros, double rate) {
        this.library = library;
        this.offsetMicros = offsetMicros;
        this.rate = rate;
    }

    /**
     * @param process the faked process, for messages
     * @param offsetMicros how far ahead of the machine's clock it starts, in µs (negative: behind)
     * @param rate how much faster it runs, e.g. 0.009 for 0.9 % fast
     * @return its clock, or empty (after a WARN saying so) without libfaketime
     */
    public static Optional<RateClock> create(String process, long offsetMicros, double rate) {
        Optional<Path> library = FakedClock.library();
        if (library.isEmpty()) {
            log.warn("The clock of {} runs at the machine's rate: no libfaketime (Debian's faketime package, or set"
                    + " {})", process, FakedClock.LIBRARY_PROPERTY);
            return Optional.empty();
        }
        return Optional.of(new RateClock(library.get(), offsetMicros, rate));
    }

    /**
     * The environment of the process's next start: the offset the clock has reached by now, so that it runs on
     * across a restart as a host's clock does.
     *
     * @return the variables to start the process with
     */
    public synchronized Map<String, String> environment() {
        offsetMicros = offsetMicros();
        startedNanos = System.nanoTime();
        String faketime = FakedClock.offsetText(offsetMicros) + String.format(Locale.ROOT, " x%.6f", 1 + rate);
        return Map.of("LD_PRELOAD", library.toString(), "FAKETIME", faketime, "FAKETIME_CACHE_DURATION",
                NEVER_EXPIRES, "FAKETIME_DONT_FAKE_MONOTONIC", "1");
    }

    /** @return the clock's offset from the machine's now, in µs */
    public synchronized long offsetMicros() {
        return offsetMicros + Math.round((System.nanoTime() - startedNanos) / 1000.0 * rate);
    }

    /** @return how much faster it runs, e.g. 0.009 */
    public double rate() {
        return rate;
    }
}
