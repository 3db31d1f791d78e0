package dev.distlock.core;

import java.io.IOException;
import java.net.InetAddress;
import java.time.Duration;

import dev.distlock.OnLeaseLost;
import org.jspecify.annotations.Nullable;

/**
 * The defaults of the engine's {@code distlock.*} settings, read by {@link LockConfig}, by the configuration
 * properties and, for the settings every store shares ({@code distlock.key-prefix}, {@code distlock.command-timeout}),
 * by the stores' configuration records. Each store's own settings have their defaults in its configuration record.
 * <p>
 * Typed values, so that the engine needs no parser of Spring Boot's duration format. The Spring Boot binding repeats
 * them as text, where {@code @DefaultValue} needs a constant string, and a test there checks that both agree.
 */
public final class LockDefaults {

    /** {@code distlock.key-prefix}. */
    public static final String KEY_PREFIX = "distlock";

    /** {@code distlock.wait-time}. */
    public static final Duration WAIT_TIME = Duration.ofSeconds(3);

    /** {@code distlock.lease-time}. */
    public static final Duration LEASE_TIME = Duration.ofSeconds(30);

    /** {@code distlock.on-lease-lost}. */
    public static final OnLeaseLost ON_LEASE_LOST = OnLeaseLost.LOG;

    /** {@code distlock.local-hand-off.max-count}. */
    public static final int LOCAL_HAND_OFF_MAX_COUNT = 100;

    /** {@code distlock.local-hand-off.max-time}. */
    public static final Duration LOCAL_HAND_OFF_MAX_TIME = Duration.ofMillis(5);

    /** {@code distlock.command-timeout}. */
    public static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(2);

    /** The application name of {@code distlock.instance-id} when none is configured. */
    public static final String APPLICATION_NAME = "application";

    private LockDefaults() {
    }

    /**
     * The default {@code distlock.instance-id}: {@code <application>@<host>:<pid>}, which tells an operator which
     * process holds a lock. The host name is this machine's as the JVM knows it (no DNS look-up when the
     * {@code HOSTNAME} variable names it), {@code localhost} when it cannot be found.
     *
     * @param applicationName the application's name ({@code spring.application.name}); blank for
     *        {@value #APPLICATION_NAME}
     * @return the instance id
     */
    public static String instanceId(@Nullable String applicationName) {
        String application = applicationName == null || applicationName.isBlank() ? APPLICATION_NAME
                : applicationName.strip();
        return application + "@" + hostName() + ":" + ProcessHandle.current().pid();
    }

    private static String hostName() {
        String fromEnvironment = System.getenv("HOSTNAME");
        if (fromEnvironment != null && !fromEnvironment.isBlank()) {
            return fromEnvironment.strip();
        }
        try {
            return InetAddress.getLocalHost().getHostName();
        }
        catch (IOException | RuntimeException ex) {
            return "localhost";
        }
    }
}
