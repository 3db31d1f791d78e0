package dev.distlock.memcached;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.spotify.folsom.AsciiMemcacheClient;
import com.spotify.folsom.MemcacheClientBuilder;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Folsom client of one store, replaced by a new one when it stayed disconnected from a server for longer than
 * Folsom takes to reconnect ({@link #stuckAfterNanos}).
 * <p>
 * Why: Folsom 1.21.0's {@code ReconnectingClient} gives up for good when a new connection is reset before its
 * connection check is chained on it. That check ({@code AsciiAuthenticationValidator}, a {@code get} sent once the
 * new connection counts as connected) then waits for a dead connection to come up, which never happens, and only its
 * end would start the next attempt; meanwhile the client keeps its last, closed connection, and every call fails at
 * once with {@code MemcacheClosedException}. It is a race (the reset must land between the connect and that
 * chaining, so a busy machine makes it likelier), and the fault campaign saw an instance fail so for an hour after a
 * reset of its link to a refusing proxy ({@code MemcachedReconnectTests}). A working client is connected again within
 * its back-off (at most 1 s) plus one check (the command timeout); one that is not after twice that is stuck, or the
 * server is still unreachable, where a new client costs one connection attempt. So the first call that finds the
 * client down that long replaces it; the old one is shut down a little later, so that calls still running on its
 * other servers' connections end first. The store stays closed meanwhile: the calls fail as before.
 */
final class MemcachedConnection implements AutoCloseable {

    private static final Logger log = LoggerFactory.getLogger(MemcachedConnection.class);

    private static final long MAX_BACKOFF_MILLIS = 1000;
    private static final long NOT_DOWN = Long.MIN_VALUE;
    private final MemcachedLockConfig config;
    private final long stuckAfterNanos;
    private volatile AsciiMemcacheClient<String> client;
    private volatile long downSince = NOT_DOWN; // System.nanoTime() when a call first found the client down
    private volatile boolean closed;
    private boolean warned; // this outage was logged at WARN: the replacements that follow are DEBUG (under the lock)

    MemcachedConnection(MemcachedLockConfig config) {
        this.config = config;
        this.stuckAfterNanos = TimeUnit.MILLISECONDS.toNanos(2 * (MAX_BACKOFF_MILLIS + config.commandTimeout()
                .toMillis()));
        this.client = connect();
    }

    private AsciiMemcacheClient<String> connect() {
        long timeout = config.commandTimeout().toMillis();
        MemcacheClientBuilder<String> builder = MemcacheClientBuilder.newStringClient();
        config.servers().forEach(server -> builder.withAddress(server.substring(0, server.lastIndexOf(':')),
                Integer.parseInt(server.substring(server.lastIndexOf(':') + 1))));
        // No retry on another connection (a lock call is answered once); reconnects within a second of a restart.
        // Replies complete on the connection's event loop, in the order the server sent them, as Lettuce's do for
        // Redis: Folsom's default hands each to a shared pool first, one thread wake-up more per call and no order.
        // What runs on them (this store's and the engine's continuations) never blocks.
        return builder.withRequestTimeoutMillis(timeout).withConnectionTimeoutMillis(timeout).withRetry(false)
                .withReplyExecutor(null)
                .withBackoff(attempt -> Math.min(MAX_BACKOFF_MILLIS, 50L << Math.min(attempt, 5))).connectAscii();
    }

    /** @return the client, a new one if this one stayed disconnected from a server for too long (class comment) */
    AsciiMemcacheClient<String> client() {
        AsciiMemcacheClient<String> current = client;
        if (current.isConnected() && current.numActiveConnections() >= current.numTotalConnections()) {
            if (downSince != NOT_DOWN) {
                downSince = NOT_DOWN;
                outageOver();
            }
            return current;
        }
        long now = System.nanoTime();
        long since = downSince;
        if (since == NOT_DOWN) {
            downSince = now;
        }
        else if (now - since > stuckAfterNanos) {
            replace(current, now - since);
        }
        return client;
    }

    private synchronized void replace(AsciiMemcacheClient<String> stuck, long downNanos) {
        if (client != stuck || closed) {
            return; // another call replaced it already
        }
        // A server down for long gets a new client every stuckAfterNanos: one WARN per outage, not one each time.
        String message = "The Memcached client stayed disconnected from {} of {} server(s) for {} ms: replacing it "
                + "with a new one (Folsom may have given up reconnecting)";
        Object[] values = { stuck.numTotalConnections() - stuck.numActiveConnections(), stuck.numTotalConnections(),
                downNanos / 1_000_000 };
        if (warned) {
            log.debug(message, values);
        }
        else {
            log.warn(message + "; further replacements in this outage are logged at DEBUG", values);
            warned = true;
        }
        client = connect();
        downSince = NOT_DOWN;
        CompletableFuture.runAsync(stuck::shutdown, CompletableFuture.delayedExecutor(2 * config.commandTimeout()
                .toMillis(), TimeUnit.MILLISECONDS));
    }

    private synchronized void outageOver() {
        warned = false;
    }

    @Override
    public synchronized void close() {
        closed = true;
        client.shutdown();
    }
}
