package dev.distlock.redis;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import dev.distlock.InvalidPropertyException;

/**
 * Settings of the {@link RedlockStore}, validated in the constructor with messages naming the {@code distlock.*}
 * property at fault.
 *
 * @param nodes Redis URIs of independent masters ({@code distlock.redlock.nodes}): at least three, each
 *        {@code redis://[user:password@]host:port} (or {@code rediss://} for TLS)
 * @param keyPrefix namespace of every Redis key ({@code distlock.key-prefix})
 * @param commandTimeout bound on each call to one master ({@code distlock.command-timeout})
 */
public record RedlockConfig(List<String> nodes, String keyPrefix, Duration commandTimeout) {

    /** Fewer masters cannot lose one and still have a majority. */
    static final int MIN_NODES = 3;

    /**
     * Validates the settings.
     */
    public RedlockConfig {
        nodes = List.copyOf(nodes);
        if (nodes.size() < MIN_NODES) {
            throw new InvalidPropertyException("distlock.redlock.nodes", "needs at least " + MIN_NODES
                    + " independent Redis masters (a majority must survive the loss of one), got " + nodes.size());
        }
        for (int i = 0; i < nodes.size(); i++) {
            requireRedisUri(i, nodes.get(i));
        }
        new RedisLockConfig(keyPrefix, commandTimeout, 0, RedisLockConfig.defaults().replicationTimeout());
    }

    private static void requireRedisUri(int index, String node) {
        String problem = null;
        try {
            URI uri = new URI(node);
            if (!"redis".equals(uri.getScheme()) && !"rediss".equals(uri.getScheme())) {
                problem = "scheme must be redis or rediss";
            }
            else if (uri.getHost() == null || uri.getPort() < 0) {
                problem = "host and port are required";
            }
            else if (uri.getPath() != null && !uri.getPath().matches("(/\\d*)?")) {
                problem = "the path may only be a database number";
            }
        }
        catch (java.net.URISyntaxException ex) {
            problem = ex.getMessage();
        }
        if (problem != null) {
            // The URI may carry a password: name the position, not the value.
            throw new InvalidPropertyException("distlock.redlock.nodes[" + index + "]", "is not a Redis URI "
                    + "(redis://[user:password@]host:port): " + problem);
        }
    }

    /** @return how many masters must grant a lock: more than half */
    public int quorum() {
        return nodes.size() / 2 + 1;
    }

    /**
     * @return the settings of each master's own store: no replicas waited for, configured as a Redlock master
     *         ({@link RedisLockConfig#redlockMaster()})
     */
    RedisLockConfig nodeConfig() {
        return new RedisLockConfig(keyPrefix, commandTimeout, 0, RedisLockConfig.defaults().replicationTimeout())
                .asRedlockMaster();
    }
}
