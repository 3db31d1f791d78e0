package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.test.HolderJvm;
import dev.distlock.test.LockHistory;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A holder JVM killed with SIGKILL (no shutdown hook, no release) blocks the lock for at most its lease.
 */
class ProcessCrashTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private final LockHistory history = new LockHistory();

    @Test
    void lockOfAKilledHolderIsFreeAgainWithinTheLease() throws Exception {
        RedisServerProcess server = redisServers.start();
        long leaseMillis = 1500;
        try (HolderJvm holder = HolderJvm.start(HolderProcess.class, String.valueOf(server.port()), "crash",
                String.valueOf(leaseMillis)); LockNodes nodes = new LockNodes()) {
            long holderToken = holder.awaitLocked(Duration.ofSeconds(60));
            long lockedAt = System.nanoTime();

            StoreLockService node = nodes.node(server, "proc");
            assertThat(node.tryLock("crash", LockOptions.defaults().withWaitTime(Duration.ZERO)))
                    .as("the live holder's watchdog keeps the lock").isEmpty();

            holder.kill();
            long killed = System.nanoTime();
            // The killed holder held the lock until it died at the latest (its work may have gone on until then).
            history.record("crash", "holder-jvm", holderToken, lockedAt, killed, false);
            try (LockHandle handle = node.lock("crash",
                    LockOptions.defaults().withWaitTime(Duration.ofMillis(leaseMillis * 3)))) {
                history.hold("survivor", handle, () -> assertThat(Duration.ofNanos(System.nanoTime() - killed))
                        .isLessThanOrEqualTo(Duration.ofMillis(leaseMillis + 1000)));
            }
            history.assertConsistent();
        }
    }
}
