package dev.distlock.jdbc;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;

import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.CompositeLockListener;
import dev.distlock.listener.LockListener;
import dev.distlock.test.support.HolderJvm;
import dev.distlock.test.support.LockHistory;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A holder JVM killed with SIGKILL (no shutdown hook, no release) blocks the lock, or its permit, for at most its
 * lease: the lease in the row ends on the database clock whether or not its holder is alive.
 */
class JdbcProcessCrashTests {

    private final LockHistory history = new LockHistory();

    @Test
    void lockOfAKilledHolderIsFreeAgainWithinTheLease() throws Exception {
        long leaseMillis = 1500;
        try (H2TestServer server = new H2TestServer(""); HikariDataSource pool = server.pool(2)) {
            server.createTable(pool, "crash_lock");
            HolderJvm holder = HolderJvm.start(HolderProcess.class, server.url(), "crash_lock", "crash",
                    String.valueOf(leaseMillis));
            try (StoreLockService node = new StoreLockService(new JdbcLockStore(pool, JdbcLockConfig.defaults()
                    .withTableName("crash_lock")), LockConfig.defaults(), CompositeLockListener.of(List.of(
                            history.listener())))) {
                node.start();
                long holderToken = holder.awaitLocked(Duration.ofSeconds(60));
                long lockedAt = System.nanoTime();
                // Refused throughout a time longer than the lease: only the live holder's watchdog keeps the lock.
                await().during(Duration.ofMillis(leaseMillis + 500)).atMost(Duration.ofMillis(leaseMillis + 5000))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> node.tryLock("crash", LockOptions.defaults().withWaitTime(Duration.ZERO)).isEmpty());

                holder.kill();
                long killed = System.nanoTime();
                history.record("crash", "holder-jvm", holderToken, lockedAt, killed, false);
                try (LockHandle handle = node.lock("crash",
                        LockOptions.defaults().withWaitTime(Duration.ofMillis(leaseMillis * 3)))) {
                    history.hold("survivor", handle, () -> assertThat(Duration.ofNanos(System.nanoTime() - killed))
                            .isLessThanOrEqualTo(Duration.ofMillis(leaseMillis + 1000)));
                    assertThat(handle.fencingToken()).isGreaterThan(holderToken);
                }
                history.assertConsistent();
            }
            finally {
                holder.close();
            }
        }
    }

    /**
     * Two permits, one held by a JVM that is then killed, the other by this one: both busy while the killed
     * holder's watchdog ran; after the kill its permit (its slot row) is free again within its lease, with a
     * higher token, and the survivor keeps its own.
     */
    @Test
    void aPermitOfAKilledHolderIsFreeAgainWithinTheLease() throws Exception {
        long leaseMillis = 1500;
        LockOptions twoPermits = LockOptions.defaults().withPermits(2);
        try (H2TestServer server = new H2TestServer(""); HikariDataSource pool = server.pool(2)) {
            server.createTable(pool, "crash_permits");
            HolderJvm holder = HolderJvm.start(HolderProcess.class, server.url(), "crash_permits", "crash-pool",
                    String.valueOf(leaseMillis), "2");
            try (StoreLockService node = new StoreLockService(new JdbcLockStore(pool, JdbcLockConfig.defaults()
                    .withTableName("crash_permits")), LockConfig.defaults(), LockListener.NONE)) {
                node.start();
                long holderToken = holder.awaitLocked(Duration.ofSeconds(60));
                LockHandle other = node.lock("crash-pool", twoPermits);
                assertThat(other.fencingToken()).isGreaterThan(holderToken);
                // Refused throughout a time longer than the lease: the live holder's watchdog keeps its permit. A
                // permit wrongly granted is counted and given back (if its release fails, it would fill the place
                // it showed free and the refusals after it would pass).
                AtomicInteger beyondThePermits = new AtomicInteger();
                await().during(Duration.ofMillis(leaseMillis + 500)).atMost(Duration.ofMillis(leaseMillis + 5000))
                        .pollInterval(Duration.ofMillis(200))
                        .until(() -> node.tryLock("crash-pool", twoPermits.withWaitTime(Duration.ZERO)).map(third -> {
                            beyondThePermits.incrementAndGet();
                            third.unlock();
                            return false;
                        }).orElse(true));
                assertThat(beyondThePermits).as("permits granted beyond the two").hasValue(0);

                holder.kill();
                long killed = System.nanoTime();
                try (LockHandle freed = node.lock("crash-pool",
                        twoPermits.withWaitTime(Duration.ofMillis(leaseMillis * 3)))) {
                    assertThat(Duration.ofNanos(System.nanoTime() - killed))
                            .isLessThanOrEqualTo(Duration.ofMillis(leaseMillis + 1000));
                    assertThat(freed.fencingToken()).isGreaterThan(other.fencingToken());
                    assertThat(other.isHeld()).as("the survivor's own permit").isTrue();
                    assertThat(node.tryLock("crash-pool", twoPermits.withWaitTime(Duration.ZERO)))
                            .as("both permits held again: the survivor's and the freed one").isEmpty();
                }
                assertThat(other.isHeld()).isTrue();
                other.unlock();
            }
            finally {
                holder.close();
            }
        }
    }
}
