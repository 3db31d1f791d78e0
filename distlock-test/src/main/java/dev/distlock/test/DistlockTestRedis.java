package dev.distlock.test;

import dev.distlock.embedded.RedisAddress;
import dev.distlock.embedded.RedisServerProcess;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded Redis of {@link DistlockTest @DistlockTest}: one {@code redis-server} process per JVM on a free
 * loopback port, started on first use and killed when the JVM exits (by {@code distlock-embedded-redis}'s shutdown
 * hook). Tests use it to look into Redis, e.g. {@code DistlockTestRedis.call("EXISTS", "distlock:{stock:42}")}.
 * <p>
 * Stopping it is not offered: the Spring contexts cached for other test classes keep connections to it.
 */
public final class DistlockTestRedis {

    private static final Logger log = LoggerFactory.getLogger(DistlockTestRedis.class);

    private static @Nullable RedisServerProcess server;

    private DistlockTestRedis() {
    }

    /**
     * @return the address of the JVM's embedded Redis, started if it is not running yet
     */
    public static RedisAddress address() {
        return server().address();
    }

    /**
     * Sends one command to the embedded Redis on a connection of its own.
     *
     * @param command the command and its arguments, e.g. {@code "EXISTS", "distlock:{stock:42}"}
     * @return the reply: a {@code String}, a {@code Long}, a {@code List} of replies, or {@code null}
     */
    public static @Nullable Object call(String... command) {
        return server().call(command);
    }

    /** The server, brought back if a test left it stopped or paused: cached contexts still point at its port. */
    static synchronized RedisServerProcess server() {
        RedisServerProcess running = server;
        if (running == null) {
            running = RedisServerProcess.startOnFreePort();
            server = running;
            log.info("Embedded Redis for @DistlockTest tests started on {}", running.address());
        }
        else if (!running.isRunning()) {
            running.start();
        }
        else if (running.isPaused()) {
            running.resume();
        }
        return running;
    }
}
