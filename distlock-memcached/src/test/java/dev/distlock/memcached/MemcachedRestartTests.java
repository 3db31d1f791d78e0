package dev.distlock.memcached;

import java.time.Duration;
import java.util.Objects;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Memcached restart empties the server: held locks are forgotten (their holders learn it at their next renewal)
 * and so are the floors of released names, yet the next fencing token of a name is still above every earlier one,
 * as it comes from the clock.
 */
class MemcachedRestartTests {

    private MemcachedTestServer server;

    private StoreLockService first;

    private StoreLockService second;

    @BeforeEach
    void start() {
        server = MemcachedTestServer.start();
        first = node();
        second = node();
    }

    private StoreLockService node() {
        StoreLockService node = new StoreLockService(MemcachedLockStore.connect(MemcachedFixtures.config(
                server.address(), Duration.ofSeconds(2))), LockConfig.defaults().withLeaseTime(Duration.ofMillis(1500))
                        .withWaitTime(Duration.ofSeconds(10)), LockListener.NONE);
        node.start();
        return node;
    }

    @AfterEach
    void stop() {
        if (server == null) { // the binary is missing and the tests were skipped
            return;
        }
        first.close();
        second.close();
        server.close();
    }

    @Test
    void aHeldLockIsForgottenByARestartAndTheNextTokenIsStillHigher() {
        LockHandle held = first.lock("restart-held");
        assertThat(second.tryLock("restart-held", LockOptions.defaults().withWaitTime(Duration.ZERO))).isEmpty();

        server.kill();
        server.restart();

        try (LockHandle next = await("locking again once the clients reconnected").atMost(Duration.ofSeconds(10))
                .ignoreExceptions().until(() -> second.lock("restart-held"), Objects::nonNull)) {
            assertThat(next.fencingToken()).as("above the token the emptied server forgot")
                    .isGreaterThan(held.fencingToken());
            await("the first holder learns of the loss at its next renewal").atMost(Duration.ofSeconds(5))
                    .until(() -> !held.isHeld());
        }
    }

    @Test
    void aReleasedNamesFloorIsForgottenByARestartAndTheNextTokenIsStillHigher() {
        long before;
        try (LockHandle handle = first.lock("restart-released")) {
            before = handle.fencingToken();
        }
        assertThat(server.value(MemcachedLockStore.key(MemcachedFixtures.KEY_PREFIX,
                "restart-released"))).as("the free item keeping the floor").startsWith(before + "|0|-|");

        server.stop();
        server.restart();
        assertThat(server.value(MemcachedLockStore.key(MemcachedFixtures.KEY_PREFIX,
                "restart-released"))).as("emptied").isNull();

        await("locking again once the clients reconnected").atMost(Duration.ofSeconds(10)).ignoreExceptions()
                .untilAsserted(() -> {
                    try (LockHandle handle = second.lock("restart-released")) {
                        assertThat(handle.fencingToken()).isGreaterThan(before);
                    }
                });
    }
}
