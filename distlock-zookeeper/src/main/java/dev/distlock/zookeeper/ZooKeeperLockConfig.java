package dev.distlock.zookeeper;

import java.time.Duration;

import dev.distlock.InvalidPropertyException;
import dev.distlock.core.LockDefaults;
import org.apache.zookeeper.common.PathUtils;

import org.springframework.boot.convert.DurationStyle;

/**
 * Settings of the {@link ZooKeeperLockStore}, validated in the constructor; messages name the {@code distlock.*}
 * property each setting is bound from, so a bad value fails start-up with the property at fault.
 *
 * @param connectString the ensemble, {@code host:port[,host:port...][/chroot]}
 *        ({@code distlock.zookeeper.connect-string}); used only when the store connects by itself
 * @param basePath the parent node of every lock node ({@code distlock.zookeeper.base-path})
 * @param sessionTimeout the session timeout the store asks for when it connects by itself
 *        ({@code distlock.zookeeper.session-timeout}); a holder whose session ends loses its locks
 * @param commandTimeout bound on each ZooKeeper call of the lock path ({@code distlock.command-timeout})
 */
public record ZooKeeperLockConfig(String connectString, String basePath, Duration sessionTimeout,
        Duration commandTimeout) {

    /** The default of {@code distlock.zookeeper.connect-string}. */
    public static final String DEFAULT_CONNECT_STRING = "localhost:2181";

    /** The default of {@code distlock.zookeeper.base-path}. */
    public static final String DEFAULT_BASE_PATH = "/distlock";

    /** The default of {@code distlock.zookeeper.session-timeout}. */
    public static final String DEFAULT_SESSION_TIMEOUT = "30s";

    private static final ZooKeeperLockConfig DEFAULTS = new ZooKeeperLockConfig(
            DEFAULT_CONNECT_STRING, DEFAULT_BASE_PATH,
            DurationStyle.detectAndParse(DEFAULT_SESSION_TIMEOUT),
            LockDefaults.COMMAND_TIMEOUT);

    /**
     * Validates the settings.
     */
    public ZooKeeperLockConfig {
        require(connectString != null && !connectString.isBlank(),
                "distlock.zookeeper.connect-string must not be blank");
        require(basePath != null && !basePath.isBlank(), "distlock.zookeeper.base-path must not be blank");
        require(basePath.startsWith("/") && (basePath.length() == 1 || !basePath.endsWith("/")),
                "distlock.zookeeper.base-path must start with '/' and not end with '/': " + basePath);
        try {
            PathUtils.validatePath(basePath);
        }
        catch (IllegalArgumentException ex) {
            throw new InvalidPropertyException("distlock.zookeeper.base-path", "is not a valid ZooKeeper path: "
                    + ex.getMessage());
        }
        require(sessionTimeout != null && sessionTimeout.toMillis() >= 1
                && sessionTimeout.toMillis() <= Integer.MAX_VALUE,
                "distlock.zookeeper.session-timeout must be between 1ms and 24 days: " + sessionTimeout);
        require(commandTimeout != null && commandTimeout.toMillis() >= 1
                && commandTimeout.toMillis() <= Integer.MAX_VALUE,
                "distlock.command-timeout must be between 1ms and 24 days: " + commandTimeout);
    }

    /** @return the documented defaults */
    public static ZooKeeperLockConfig defaults() {
        return DEFAULTS;
    }

    /** @param message the property's name, a space, and what is wrong with its value */
    private static void require(boolean condition, String message) {
        if (!condition) {
            int space = message.indexOf(' ');
            throw new InvalidPropertyException(message.substring(0, space), message.substring(space + 1));
        }
    }

    /** @param connectString the ensemble @return a copy with it */
    public ZooKeeperLockConfig withConnectString(String connectString) {
        return new ZooKeeperLockConfig(connectString, basePath, sessionTimeout, commandTimeout);
    }

    /** @param basePath the parent node of every lock @return a copy with it */
    public ZooKeeperLockConfig withBasePath(String basePath) {
        return new ZooKeeperLockConfig(connectString, basePath, sessionTimeout, commandTimeout);
    }

    /** @param sessionTimeout the session timeout @return a copy with it */
    public ZooKeeperLockConfig withSessionTimeout(Duration sessionTimeout) {
        return new ZooKeeperLockConfig(connectString, basePath, sessionTimeout, commandTimeout);
    }

    /** @param commandTimeout the ZooKeeper call bound @return a copy with it */
    public ZooKeeperLockConfig withCommandTimeout(Duration commandTimeout) {
        return new ZooKeeperLockConfig(connectString, basePath, sessionTimeout, commandTimeout);
    }
}
