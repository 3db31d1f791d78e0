package dev.distlock.zookeeper;

import java.time.Duration;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.StoreLockService;
import dev.distlock.test.support.HolderJvm;
import dev.distlock.test.support.LockHistory;
import org.apache.curator.test.TestingServer;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder JVM killed with SIGKILL (no shutdown hook, no release, no goodbye to ZooKeeper) blocks the lock, or its
 * permit, for at most its session timeout: the server expires the session and deletes its node.
 */
class ProcessCrashTests {

    private final LockHistory history = new LockHistory();

    @Test
    void lockOfAKilledHolderIsFreeAgainWithinTheSessionTimeout() throws Exception {
        long sessionMillis = 2000;
        try (TestingServer server = ZooKeeperServers.server(); ZooKeeperNodes nodes = new ZooKeeperNodes()) {
            try (HolderJvm holder = HolderJvm.start(ZooKeeperHolderProcess.class, server.getConnectString(),
                    "/crash", "crash", String.valueOf(sessionMillis))) {
                long holderToken = holder.awaitLocked(Duration.ofSeconds(60));
                long lockedAt = System.nanoTime();
                StoreLockService node = nodes.node(ZooKeeperServers.config(server.getConnectString(), "/crash"));
                assertThat(node.tryLock("crash", LockOptions.defaults().withWaitTime(Duration.ofMillis(500))))
                        .as("the live holder's session keeps the lock").isEmpty();

                holder.kill();
                long killed = System.nanoTime();
                history.record("crash", "holder-jvm", holderToken, lockedAt, killed, false);
                try (LockHandle handle = node.lock("crash", LockOptions.defaults()
                        .withWaitTime(Duration.ofMillis(sessionMillis * 4)))) {
                    // The server expires the session on its tick (300 ms) after the last heartbeat, which came
                    // before the kill; the rest is slack for a busy machine.
                    history.hold("survivor", handle, () -> assertThat(Duration.ofNanos(System.nanoTime() - killed))
                            .isLessThanOrEqualTo(Duration.ofMillis(sessionMillis + 2000)));
                }
                history.assertConsistent();
            }
        }
    }

    @Test
    void aPermitOfAKilledHolderIsFreeAgainWithinTheSessionTimeout() throws Exception {
        long sessionMillis = 2000;
        LockOptions twoPermits = LockOptions.defaults().withPermits(2);
        try (TestingServer server = ZooKeeperServers.server(); ZooKeeperNodes nodes = new ZooKeeperNodes()) {
            try (HolderJvm holder = HolderJvm.start(ZooKeeperHolderProcess.class, server.getConnectString(),
                    "/crash", "crash-pool", String.valueOf(sessionMillis), "2")) {
                long holderToken = holder.awaitLocked(Duration.ofSeconds(60));
                StoreLockService node = nodes.node(ZooKeeperServers.config(server.getConnectString(), "/crash"));
                LockHandle other = node.lock("crash-pool", twoPermits);
                assertThat(other.fencingToken()).isGreaterThan(holderToken);
                assertThat(node.tryLock("crash-pool", twoPermits.withWaitTime(Duration.ofMillis(500))))
                        .as("both permits held, the live holder's by its session").isEmpty();

                holder.kill();
                long killed = System.nanoTime();
                try (LockHandle freed = node.lock("crash-pool", twoPermits
                        .withWaitTime(Duration.ofMillis(sessionMillis * 4)))) {
                    // As for a lock: the session expires on the server's tick after the last heartbeat; the rest is
                    // slack for a busy machine.
                    assertThat(Duration.ofNanos(System.nanoTime() - killed))
                            .isLessThanOrEqualTo(Duration.ofMillis(sessionMillis + 2000));
                    assertThat(freed.fencingToken()).isGreaterThan(other.fencingToken());
                    assertThat(other.isHeld()).as("the survivor's own permit").isTrue();
                    assertThat(node.tryLock("crash-pool", twoPermits.withWaitTime(Duration.ZERO)))
                            .as("both permits held again, by this JVM").isEmpty();
                }
                other.unlock();
            }
        }
    }
}
