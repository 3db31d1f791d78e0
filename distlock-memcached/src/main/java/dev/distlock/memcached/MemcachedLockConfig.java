package dev.distlock.memcached;

import java.time.Duration;
import java.util.List;

import dev.distlock.InvalidPropertyException;

/**
 * Settings of the {@link MemcachedLockStore}, validated with messages naming the property.
 *
 * @param servers {@code host:port} of each server ({@code distlock.memcached.servers})
 * @param keyPrefix every key starts with this and {@code :} ({@code distlock.key-prefix})
 * @param commandTimeout bound on each call and on connecting ({@code distlock.command-timeout})
 * @param allowEvictions whether a server that may evict serves, with a WARN
 *        ({@code distlock.memcached.allow-evictions})
 */
public record MemcachedLockConfig(List<String> servers, String keyPrefix, Duration commandTimeout,
        boolean allowEvictions) {

    /** Validates the settings and copies the servers. */
    public MemcachedLockConfig {
        servers = servers.stream().map(String::trim).toList();
        require(!servers.isEmpty(), "distlock.memcached.servers must name at least one server");
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
