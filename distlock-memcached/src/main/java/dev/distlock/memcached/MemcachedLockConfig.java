package dev.distlock.memcached;

import java.time.Duration;
import java.util.List;

import dev.distlock.InvalidPropertyException;

/**
 * Settings of the {@link MemcachedLockStore}, validated here with messages naming the {@code distlock.*} property.
 *
 * @param servers {@code host:port} of each server ({@code distlock.memcached.servers}); a name always lives on the
 *        one its hash picks, and is never moved to another while that one is down
 * @param keyPrefix every key starts with this and {@code :} ({@code distlock.key-prefix})
 * @param commandTimeout bound on each Memcached call and on connecting ({@code distlock.command-timeout})
 * @param allowEvictions whether a server that may evict items under memory pressure serves, after a WARN, instead
 *        of being refused ({@code distlock.memcached.allow-evictions})
 */
public record MemcachedLockConfig(List<String> servers, String keyPrefix, Duration commandTimeout,
        boolean allowEvictions) {

    /** The default of {@code distlock.memcached.servers}. */
    public static final String DEFAULT_SERVERS = "localhost:11211";

    /** Validates the settings and copies the servers. */
    public MemcachedLockConfig {
        require(!servers.isEmpty(), "distlock.memcached.servers must name at least one server");
        servers = servers.stream().map(String::trim).toList();
        for (String server : servers) {
            require(server.matches(".+:[0-9]{1,5}") && Integer.parseInt(server.replaceAll(".*:", "")) <= 65535,
                    "distlock.memcached.servers must hold host:port entries, not '" + server + "'");
        }
        require(!keyPrefix.isBlank() && keyPrefix.length() < 100 && keyPrefix.chars().allMatch(c -> c > 32 && c < 127),
                "distlock.key-prefix must be printable ASCII without spaces (a Memcached key): '" + keyPrefix + "'");
        require(commandTimeout.toMillis() >= 1, "distlock.command-timeout must be at least 1ms: " + commandTimeout);
    }

    /** @param message the property's name, a space, and what is wrong with its value */
    private static void require(boolean condition, String message) {
        if (!condition) {
            int space = message.indexOf(' ');
            throw new InvalidPropertyException(message.substring(0, space), message.substring(space + 1));
        }
    }
}
