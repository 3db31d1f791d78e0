package dev.distlock.test.support.campaign;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;

import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The wall clock of one store process, faked with Debian's libfaketime ({@code faketime} package): the process is
 * started with {@link #environment()} ({@code LD_PRELOAD} of the library and a file holding the clock's offset),
 * and {@link #step} and {@link #drift} rewrite that file, which the library reads at every clock call
 * ({@code FAKETIME_NO_CACHE}). Only the wall clock is faked ({@code FAKETIME_DONT_FAKE_MONOTONIC}): Redis expires
 * keys and PostgreSQL and MariaDB judge leases by it, and a stepped monotonic clock is no fault real hosts have.
 * Programs that read the clock without libc (Go's etcd) ignore the library.
 * <p>
 * A drift is a series of small steps, one every {@value #TICK_MILLIS} ms. A clock limited by
 * {@link #limitGain(long)} gains at most that much on the machine's clock in any second, whatever steps and drifts
 * add up to: what the engine's drift margin covers.
 * <p>
 * Only for a process that reads its clock on one thread (Redis's event loop, a PostgreSQL backend): the library
 * re-reads the file into buffers its threads share, and another thread may then read the machine's time. A
 * multi-threaded server takes a {@link RateClock}.
 */
public final class FakedClock implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(FakedClock.class);

    /** Environment variable or system property naming libfaketime instead of Debian's path. */
    public static final String LIBRARY_PROPERTY = "DISTLOCK_FAKETIME_LIB";

    private static final Path DEBIAN_LIBRARY = Path.of("/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1");

    static final long TICK_MILLIS = 10;

    /** Whether a program runs under the library, tried once per program. */
    private static final Map<Path, Boolean> RUNS = new java.util.concurrent.ConcurrentHashMap<>();

    private static final long SECOND_NANOS = 1_000_000_000L;

    private final String process;

    private final Path library;

    private final Path file;

    private final ScheduledExecutorService ticker;

    /** Forward changes of the last second: {System.nanoTime(), µs gained}. */
    private final Deque<long[]> gains = new ArrayDeque<>();

    private long offsetMicros;

    private long gainLimitMicros = Long.MAX_VALUE;

    private @Nullable ScheduledFuture<?> drifting;

    /** The rate the clock runs at between drift faults ({@link #baseDrift}); 0 for the machine's. */
    private double baseRate;

    private FakedClock(String process, Path library, Path file) {
        this.process = process;
        this.library = library;
        this.file = file;
        this.ticker = Executors.newSingleThreadScheduledExecutor(task -> {
            Thread thread = new Thread(task, "faked-clock-" + process);
            thread.setDaemon(true);
            return thread;
        });
    }

    /**
     * @param process the faked process, for messages, e.g. "redis 6380"
     * @return its clock, or empty (after a WARN saying so) when libfaketime is not installed: its clock faults are
     *         then skipped visibly
     */
    public static Optional<FakedClock> create(String process) {
        Optional<Path> library = library();
        if (library.isEmpty()) {
            log.warn("Clock faults of {} SKIPPED: no libfaketime at {} (Debian's faketime package, or set {})",
                    process, DEBIAN_LIBRARY, LIBRARY_PROPERTY);
            return Optional.empty();
        }
        try {
            Path file = Files.createTempFile("distlock-clock", ".offset",
                    PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-r--r--")));
            // Readable by a server that runs as another user (PostgreSQL as root runs as postgres).
            Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rw-r--r--"));
            file.toFile().deleteOnExit();
            FakedClock clock = new FakedClock(process, library.get(), file);
            clock.write();
            return Optional.of(clock);
        }
        catch (IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }

    /**
     * @param process the faked process, for messages
     * @param program the program it runs, tried once under the library ({@code --version})
     * @return its clock, or empty (after a WARN saying why) without libfaketime or when the program does not run
     *         under it: a statically linked program (the Maven Central Redis 7.4) never loads the library, and one
     *         linked with jemalloc (Debian's {@code redis-server}) hangs at its start (jemalloc reads the clock while
     *         libfaketime is still starting up)
     */
    public static Optional<FakedClock> create(String process, Path program) {
        Optional<FakedClock> clock = create(process);
        if (clock.isPresent() && !RUNS.computeIfAbsent(program, clock.get()::runs)) {
            log.warn("Clock faults of {} SKIPPED: {} does not run under libfaketime (it is statically linked, so the"
                    + " library is never loaded, or {} --version did not end within 5 s: a program linked with"
                    + " jemalloc hangs there)", process, program, program);
            clock.get().close();
            return Optional.empty();
        }
        return clock;
    }

    /** Whether the program is dynamically linked (a static one never loads the library) and runs under it. */
    private boolean runs(Path program) {
        return succeeds(new ProcessBuilder("ldd", program.toString()))
                && succeeds(new ProcessBuilder(program.toString(), "--version"));
    }

    private boolean succeeds(ProcessBuilder command) {
        try {
            ProcessBuilder builder = command.redirectErrorStream(true).redirectOutput(ProcessBuilder.Redirect.DISCARD);
            builder.environment().putAll(environment());
            Process started = builder.start();
            if (!started.waitFor(5, TimeUnit.SECONDS)) {
                started.destroyForcibly();
                return false;
            }
            return started.exitValue() == 0;
        }
        catch (IOException ex) {
            return false;
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    /** @return libfaketime, where installed */
    public static Optional<Path> library() {
        String configured = System.getenv(LIBRARY_PROPERTY);
        configured = System.getProperty(LIBRARY_PROPERTY, configured);
        Path path = configured == null || configured.isBlank() ? DEBIAN_LIBRARY : Path.of(configured);
        return Files.isReadable(path) ? Optional.of(path) : Optional.empty();
    }

    /** @return the environment the faked process must be started with */
    public Map<String, String> environment() {
        return Map.of("LD_PRELOAD", library.toString(), "FAKETIME_TIMESTAMP_FILE", file.toString(),
                "FAKETIME_NO_CACHE", "1", "FAKETIME_DONT_FAKE_MONOTONIC", "1");
    }

    /** @return the process, as messages name it */
    public String process() {
        return process;
    }

    /**
     * Limits how much this clock gains on the machine's clock in any second (steps forward and a fast drift
     * together): a step is cut short, a drift slowed down, at the limit.
     *
     * @param micros the most it gains in any second
     */
    public synchronized void limitGain(long micros) {
        this.gainLimitMicros = micros;
    }

    /**
     * Steps the clock, forward or back.
     *
     * @param micros by how much; negative steps back
     * @return by how much it was stepped: less than asked for when a step forward met the gain limit
     */
    public synchronized long step(long micros) {
        long done = micros > 0 ? Math.min(micros, gainLeft()) : micros;
        if (done > 0) {
            gains.addLast(new long[] { System.nanoTime(), done });
        }
        offsetMicros += done;
        write();
        return done;
    }

    /**
     * Lets the clock run at another rate until {@link #stopDrift()}: a step every {@value #TICK_MILLIS} ms.
     *
     * @param rate how much faster it runs, e.g. 0.009 for 0.9 % fast, -0.009 for 0.9 % slow
     */
    public synchronized void drift(double rate) {
        cancelDrift();
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

    /**
     * Lets the clock run at that rate for good, between drift faults too: {@link #stopDrift()} comes back to it.
     *
     * @param rate how much faster it runs, e.g. 0.005 for 0.5 % fast
     */
    public synchronized void baseDrift(double rate) {
        baseRate = rate;
        drift(rate);
    }

    /**
     * Ends a drift: the clock keeps the offset it reached and runs at its base rate again ({@link #baseDrift}, the
     * machine's unless set).
     */
    public synchronized void stopDrift() {
        cancelDrift();
        if (baseRate != 0) {
            drift(baseRate);
        }
    }

    private void cancelDrift() {
        if (drifting != null) {
            drifting.cancel(false);
            drifting = null;
        }
    }

    /** @return the clock's offset from the machine's, in µs */
    public synchronized long offsetMicros() {
        return offsetMicros;
    }

    private long gainLeft() {
        long now = System.nanoTime();
        while (!gains.isEmpty() && now - gains.peekFirst()[0] >= SECOND_NANOS) {
            gains.removeFirst();
        }
        long gained = gains.stream().mapToLong(gain -> gain[1]).sum();
        return gainLimitMicros == Long.MAX_VALUE ? Long.MAX_VALUE : Math.max(0, gainLimitMicros - gained);
    }

    private void write() {
        // Replaced whole, so that no read sees half a file.
        String text = offsetText(offsetMicros) + System.lineSeparator();
        try {
            Path next = file.resolveSibling(file.getFileName() + ".next");
            Files.writeString(next, text, StandardCharsets.US_ASCII);
            Files.setPosixFilePermissions(next, PosixFilePermissions.fromString("rw-r--r--"));
            Files.move(next, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not write the clock of " + process + " to " + file, ex);
        }
    }

    /**
     * @param micros an offset from the machine's clock, in µs
     * @return it in libfaketime's relative form, "+1.500000" or "-0.000250" seconds
     */
    static String offsetText(long micros) {
        return String.format(Locale.ROOT, "%s%d.%06d", micros < 0 ? "-" : "+", Math.abs(micros) / 1_000_000,
                Math.abs(micros) % 1_000_000);
    }

    /** Stops any drift; the file goes when the JVM exits (a server may still read it until then). */
    @Override
    public synchronized void close() {
        cancelDrift();
        ticker.shutdownNow();
    }
}
