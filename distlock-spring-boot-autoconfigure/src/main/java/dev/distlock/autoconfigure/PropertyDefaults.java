package dev.distlock.autoconfigure;

import dev.distlock.core.LockDefaults;

/**
 * {@link LockDefaults} as text, for {@code @DefaultValue} (which takes constant strings) and so for the defaults
 * that the configuration metadata shows. {@code PropertyDefaultsTests} binds them and checks that they agree with
 * {@link LockDefaults}.
 */
final class PropertyDefaults {

    static final String WAIT_TIME = "3s";

    static final String LEASE_TIME = "30s";

    static final String ON_LEASE_LOST = "log";

    static final String LOCAL_HAND_OFF_MAX_COUNT = "100";

    static final String LOCAL_HAND_OFF_MAX_TIME = "5ms";

    static final String COMMAND_TIMEOUT = "2s";

    private PropertyDefaults() {
    }
}
