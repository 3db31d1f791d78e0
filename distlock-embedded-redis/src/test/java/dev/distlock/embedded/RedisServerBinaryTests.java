package dev.distlock.embedded;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The binary is the one asked for: 6.2 by default, 7.4 with DISTLOCK_REDIS_VERSION=7.4, or a given path. */
class RedisServerBinaryTests {

    @Test
    void runsTheRequestedVersion() {
        String version = RedisServerBinary.version();
        String override = setting(RedisServerBinary.OVERRIDE);
        String wanted = setting(RedisServerBinary.VERSION);
        if (override == null) {
            assertThat(version).startsWith((wanted == null ? RedisServerBinary.DEFAULT_VERSION : wanted) + ".");
        }
        assertThat(RedisServerBinary.isAtLeast(6, 2)).isTrue();
        assertThat(RedisServerBinary.isAtLeast(99, 0)).isFalse();

        RedisServerProcess server = RedisServerProcess.startOnFreePort();
        try {
            assertThat(Replies.info(server.call("INFO", "server"))).containsEntry("redis_version", version);
            // What the library needs of every version: Lua scripting and ACL users.
            assertThat(server.call("EVAL", "return redis.call('SET', KEYS[1], ARGV[1])", "1", "k", "v"))
                    .isEqualTo("OK");
            assertThat(server.call("ACL", "SETUSER", "locker", "on", ">pw", "~distlock:*", "+@all")).isEqualTo("OK");
            assertThat(server.call("ACL", "WHOAMI")).isEqualTo("default");
        }
        finally {
            server.kill();
        }
    }

    private static String setting(String name) {
        String value = System.getProperty(name, System.getenv(name));
        return value == null || value.isBlank() ? null : value.trim();
    }
}
