package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.test.support.HolderJvm;
import dev.distlock.test.support.LockHistory;
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

    @Test
    void aPermitOfAKilledHolderIsFreeAgainWithinTheLease() throws Exception {
        RedisServerProcess server = redisServers.start();
        long leaseMillis = 1500;
        LockOptions twoPermits = LockOptions.defaults().withPermits(2);
        try (HolderJvm holder = HolderJvm.start(HolderProcess.class, String.valueOf(server.port()), "crash-pool",
                String.valueOf(leaseMillis), "2"); LockNodes nodes = new LockNodes()) {
            long holderToken = holder.awaitLocked(Duration.ofSeconds(60));
            StoreLockService node = nodes.node(server, "proc");
            LockHandle other = node.lock("crash-pool", twoPermits);
            assertThat(other.fencingToken()).isGreaterThan(holderToken);
            assertThat(node.tryLock("crash-pool", twoPermits.withWaitTime(Duration.ZERO)))
                    .as("both permits held, the killed holder's kept by its watchdog").isEmpty();

            holder.kill();
            long killed = System.nanoTime();
            try (LockHandle freed = node.lock("crash-pool", twoPermits.withWaitTime(Duration.ofMillis(leaseMillis * 3)))) {
                assertThat(Duration.ofNanos(System.nanoTime() - killed))
                        .isLessThanOrEqualTo(Duration.ofMillis(leaseMillis + 1000));
                assertThat(freed.fencingToken()).isGreaterThan(other.fencingToken());
                assertThat(other.isHeld()).as("the survivor's own permit").isTrue();
            }
            other.unlock();
        }
    }
}
