package dev.distlock.benchmarks;

import java.util.Objects;

/**
 * The one Redis server every contender of a run talks to.
 *
 * @param host host name or address
 * @param port TCP port
 */
public record RedisTarget(String host, int port) {

    /** Validates the address. */
    public RedisTarget {
        Objects.requireNonNull(host, "host");
        if (host.isBlank() || port <= 0 || port > 65535) {
            throw new IllegalArgumentException("Invalid Redis address " + host + ":" + port);
        }
    }

    /**
     * Parses {@code host:port}.
     *
     * @param hostPort the address, e.g. {@code 127.0.0.1:6379}
     * @return the target
     */
    public static RedisTarget parse(String hostPort) {
        int colon = hostPort.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("--redis expects host:port, got '" + hostPort + "'");
        }
        return new RedisTarget(hostPort.substring(0, colon), Integer.parseInt(hostPort.substring(colon + 1)));
    }

    /** @return {@code redis://host:port} */
    public String uri() {
        return "redis://" + host + ":" + port;
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
