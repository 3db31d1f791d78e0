package dev.distlock.embedded;

import java.util.Objects;

/**
 * The loopback address of one Redis process (server, replica, Sentinel or cluster node).
 * <p>
 * {@link #toString()} is {@code host:port}, the form that {@code spring.data.redis.sentinel.nodes} and
 * {@code spring.data.redis.cluster.nodes} take.
 *
 * @param host the host to connect to
 * @param port the TCP port
 */
public record RedisAddress(String host, int port) {

    /**
     * Checks the components.
     *
     * @param host the host to connect to
     * @param port the TCP port
     */
    public RedisAddress {
        Objects.requireNonNull(host, "host");
        if (port <= 0 || port > 65535) {
            throw new IllegalArgumentException("port " + port);
        }
    }

    /**
     * Parses {@code host:port}, also the {@code host:port@busport[,hostname]} form of {@code CLUSTER NODES}.
     *
     * @param text the address
     * @return the address
     */
    public static RedisAddress parse(String text) {
        String plain = text;
        int at = plain.indexOf('@');
        if (at >= 0) {
            plain = plain.substring(0, at);
        }
        int colon = plain.lastIndexOf(':');
        if (colon <= 0) {
            throw new IllegalArgumentException("not host:port: " + text);
        }
        return new RedisAddress(plain.substring(0, colon), Integer.parseInt(plain.substring(colon + 1)));
    }

    /** @return {@code redis://host:port}, as {@code distlock.redlock.nodes} takes it */
    public String uri() {
        return "redis://" + host + ":" + port;
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
