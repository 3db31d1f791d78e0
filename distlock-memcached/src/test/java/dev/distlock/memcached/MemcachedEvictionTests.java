package dev.distlock.memcached;

import java.time.Duration;

import dev.distlock.InvalidPropertyException;
import dev.distlock.LockHandle;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * A Memcached that may evict (started without {@code -M}, as Memcached runs by default) could free a held lock
 * silently: the store refuses it at start, naming the property and the server option, unless
 * {@code distlock.memcached.allow-evictions=true}, which starts with a WARN.
 */
@ExtendWith(OutputCaptureExtension.class)
class MemcachedEvictionTests {

    static MemcachedTestServer evicting;

    @BeforeAll
    static void start() {
        evicting = MemcachedTestServer.start(true);
    }

    @AfterAll
    static void stop() {
        if (evicting != null) { // null when the binary is missing and the tests were skipped
            evicting.close();
        }
    }

    @Test
    void aServerThatMayEvictIsRefusedAtStart() {
        assertThatThrownBy(() -> MemcachedLockStore.connect(MemcachedFixtures.config(evicting.address(),
                Duration.ofSeconds(2)))).isInstanceOf(InvalidPropertyException.class)
                .hasMessageContaining("evictions on").hasMessageContaining("memcached -M")
                .hasMessageContaining("distlock.memcached.allow-evictions=true");
    }

    @Test
    void allowEvictionsStartsWithAWarnAndLocks(CapturedOutput output) {
        MemcachedLockStore store = MemcachedLockStore.connect(new MemcachedLockConfig(
                java.util.List.of(evicting.address()), "evicting", Duration.ofSeconds(2), true));
        assertThat(output).contains("WARN").contains("may evict items under memory pressure")
                .contains("accepted as distlock.memcached.allow-evictions=true");
        try (StoreLockService node = new StoreLockService(store, LockConfig.defaults(), LockListener.NONE)) {
            node.start();
            try (LockHandle handle = node.lock("evicting")) {
                assertThat(evicting.value(MemcachedLockStore.key("evicting", "evicting")))
                        .startsWith(handle.fencingToken() + "|");
            }
        }
    }
}
