package dev.distlock.memcached;

import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import com.spotify.folsom.AsciiMemcacheClient;
import com.spotify.folsom.MemcachedStats;
import dev.distlock.InvalidPropertyException;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The servers behind one Folsom client (its consistent hashing puts each key on one server, and never moves it while
 * that one is down), checked before they serve a lock, and the token clock.
 * <p>
 * The check: an evicted item would free a held lock silently, so every server's {@code stats settings} must say
 * {@code evictions off} ({@code memcached -M}), or {@code distlock.memcached.allow-evictions=true} lets it serve after
 * a WARN. Calls fail until the check passed. The token clock is this JVM's wall clock in µs; Memcached's
 * ({@code stats time}) counts whole seconds, too coarse to order tokens, so it guards: more than 3 s off it, the
 * tokens follow the server's clock (with a WARN), so that one wrong clock cannot issue tokens far below the others'.
 * <p>
 * The wall clock is a {@link Clock} ({@link Clock#systemUTC()} but in tests): a lease's end is written by one
 * instance's clock and read by another's, and the store's {@link MemcachedLockStore#CLOCK_SKEW_MICROS} margin is
 * there for the skew between them, so tests and the fault campaign step and drift it per instance.
 * <p>
 * The client is {@link MemcachedConnection}'s, which replaces one that Folsom stopped reconnecting.
 */
final class MemcachedServers implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MemcachedServers.class);

    private static final String ALLOW_EVICTIONS = "distlock.memcached.allow-evictions";
    private final MemcachedLockConfig config;
    private final Clock clock;
    private final MemcachedConnection connection;
    private volatile @Nullable Check check;
    private volatile boolean passed;
    private volatile long offsetMicros;

    /** A check of the servers on one client: a client that was replaced before it passed is checked anew. */
    private record Check(AsciiMemcacheClient<String> client, CompletableFuture<AsciiMemcacheClient<String>> result) {
    }

    MemcachedServers(MemcachedLockConfig config, Clock clock) {
        this.config = config;
        this.clock = clock;
        this.connection = new MemcachedConnection(config);
    }

    /**
     * @return the client once every server passed the check (once: a client that replaced a stuck one talks to the
     *         same servers); fails while one cannot be checked or was refused
     */
    CompletionStage<AsciiMemcacheClient<String>> ready() {
        AsciiMemcacheClient<String> client = connection.client();
        if (passed) {
            return CompletableFuture.completedFuture(client);
        }
        Check current = check;
        if (current == null || current.client() != client || current.result().isCompletedExceptionally()) {
            current = new Check(client, client.connectFuture().thenCompose(connected -> client.getStats("settings"))
                    .thenCompose(settings -> client.getStats("").thenApply(stats -> accept(client, settings, stats)))
                    .toCompletableFuture());
            check = current;
        }
        return current.result();
    }

    private AsciiMemcacheClient<String> accept(AsciiMemcacheClient<String> client,
            Map<String, MemcachedStats> settings, Map<String, MemcachedStats> stats) {
        settings.forEach((server, values) -> {
            String evictions = values.getStats().getOrDefault("evictions", "on");
            String risk = "Memcached at " + server + " may evict items under memory pressure (stats settings: "
                    + "evictions " + evictions + "), which would silently free a held lock";
            if (!"off".equals(evictions) && !config.allowEvictions()) {
                throw new InvalidPropertyException(ALLOW_EVICTIONS, "is false, and " + risk + ". Run it with "
                        + "`memcached -M` (evictions off), or set " + ALLOW_EVICTIONS + "=true to accept that risk");
            }
            if (!"off".equals(evictions)) {
                log.warn("{}: accepted as {}=true. Run it with `memcached -M`", risk, ALLOW_EVICTIONS);
            }
        });
        String time = stats.values().iterator().next().getStats().get("time");
        // Memcached's time lags the wall clock by up to 2 s (whole seconds, a tick per second): 3 s is clearly wrong.
        long off = time == null ? 0 : Long.parseLong(time) * 1_000_000 + 500_000 - localMicros();
        offsetMicros = Math.abs(off) > 3_000_000 ? off : 0;
        if (offsetMicros != 0) {
            log.warn("This JVM's clock is {} ms off Memcached's: fencing tokens follow the server's clock", off / 1000);
        }
        passed = true;
        return client;
    }

    /**
     * Checks the servers at start; one that does not answer in time is checked at the first call.
     *
     * @return these servers
     * @throws InvalidPropertyException when a server may evict and evictions are not allowed (the client is closed)
     */
    MemcachedServers checkAtStart() {
        try {
            ready().toCompletableFuture().get(config.commandTimeout().toMillis() * 2, TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        catch (ExecutionException | TimeoutException ex) {
            if (ex.getCause() instanceof InvalidPropertyException refused) { // a server that may evict
                close();
                throw new InvalidPropertyException(refused.property(), refused.problem());
            }
            log.warn("Memcached did not answer at start ({}): it is checked at the first call", ex.toString());
        }
        return this;
    }

    /** @return the token clock, in µs */
    long clockMicros() {
        return localMicros() + offsetMicros;
    }

    private long localMicros() {
        Instant now = clock.instant();
        return now.getEpochSecond() * 1_000_000 + now.getNano() / 1000;
    }

    List<String> addresses() {
        return config.servers();
    }

    @Override
    public void close() {
        connection.close();
    }
}
