package dev.distlock.etcd;

import java.net.URI;
import java.time.Duration;
import java.util.List;

import dev.distlock.InvalidPropertyException;
import dev.distlock.core.LockDefaults;
import org.jspecify.annotations.Nullable;

/**
 * Settings of the {@link EtcdLockStore}, validated in the constructor; messages name the {@code distlock.*}
 * property each setting is bound from, so a bad value fails start-up with the property at fault.
 *
 * @param endpoints the etcd client URLs ({@code distlock.etcd.endpoints}); used only when the store connects by
 *        itself
 * @param username the etcd user ({@code distlock.etcd.username}), or {@code null} without authentication
 * @param password that user's password ({@code distlock.etcd.password}); never logged
 * @param keyPrefix every key of the store starts with this and {@code /} ({@code distlock.key-prefix})
 * @param commandTimeout bound on each etcd call of the lock path ({@code distlock.command-timeout}); also how long
 *        the store's own client waits to connect
 */
public record EtcdLockConfig(List<String> endpoints, @Nullable String username, @Nullable String password,
        String keyPrefix, Duration commandTimeout) {

    /** The default of {@code distlock.etcd.endpoints}. */
    public static final String DEFAULT_ENDPOINTS = "http://localhost:2379";

    private static final EtcdLockConfig DEFAULTS = new EtcdLockConfig(List.of(DEFAULT_ENDPOINTS), null, null,
            LockDefaults.KEY_PREFIX, LockDefaults.COMMAND_TIMEOUT);

    /**
     * Validates the settings and copies the endpoints.
     */
    public EtcdLockConfig {
        require(endpoints != null && !endpoints.isEmpty(), "distlock.etcd.endpoints must name at least one URL");
        endpoints = List.copyOf(endpoints);
        for (String endpoint : endpoints) {
            require(endpoint != null && !endpoint.isBlank(), "distlock.etcd.endpoints must not hold a blank URL");
            URI uri;
            try {
                uri = URI.create(endpoint.trim());
            }
            catch (IllegalArgumentException ex) {
                throw new InvalidPropertyException("distlock.etcd.endpoints", "holds an invalid URL '" + endpoint
                        + "': " + ex.getMessage());
            }
            require(("http".equals(uri.getScheme()) || "https".equals(uri.getScheme())) && uri.getHost() != null
                    && uri.getPort() > 0, "distlock.etcd.endpoints must hold URLs like http://host:2379, not '"
                            + endpoint + "'");
        }
        require(username == null || !username.isBlank(), "distlock.etcd.username must not be blank when set");
        require(password == null || username != null,
                "distlock.etcd.password is set without distlock.etcd.username");
        require(keyPrefix != null && !keyPrefix.isBlank(), "distlock.key-prefix must not be blank");
        require(commandTimeout != null && commandTimeout.toMillis() >= 1
                && commandTimeout.toMillis() <= Integer.MAX_VALUE,
                "distlock.command-timeout must be between 1ms and 24 days: " + commandTimeout);
    }

    /** @return the documented defaults */
    public static EtcdLockConfig defaults() {
        return DEFAULTS;
    }

    /** @param message the property's name, a space, and what is wrong with its value */
    private static void require(boolean condition, String message) {
        if (!condition) {
            int space = message.indexOf(' ');
            throw new InvalidPropertyException(message.substring(0, space), message.substring(space + 1));
        }
    }

    /** @param endpoints the client URLs @return a copy with them */
    public EtcdLockConfig withEndpoints(List<String> endpoints) {
        return new EtcdLockConfig(endpoints, username, password, keyPrefix, commandTimeout);
    }

    /** @param username the user @param password the password @return a copy with them */
    public EtcdLockConfig withCredentials(@Nullable String username, @Nullable String password) {
        return new EtcdLockConfig(endpoints, username, password, keyPrefix, commandTimeout);
    }

    /** @param keyPrefix the key namespace @return a copy with it */
    public EtcdLockConfig withKeyPrefix(String keyPrefix) {
        return new EtcdLockConfig(endpoints, username, password, keyPrefix, commandTimeout);
    }

    /** @param commandTimeout the etcd call bound @return a copy with it */
    public EtcdLockConfig withCommandTimeout(Duration commandTimeout) {
        return new EtcdLockConfig(endpoints, username, password, keyPrefix, commandTimeout);
    }

    @Override
    public String toString() {
        // Never the password.
        return "EtcdLockConfig[endpoints=" + endpoints + ", username=" + username + ", password="
                + (password == null ? "none" : "******") + ", keyPrefix=" + keyPrefix + ", commandTimeout="
                + commandTimeout + "]";
    }
}
