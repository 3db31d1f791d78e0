package dev.distlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockType;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * READ locks are shared between readers and exclude writers (WRITE, REENTRANT, FAIR); across nodes and threads.
 */
class ReadWriteLockTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    private final LockNodes nodes = new LockNodes();

    private final RedisLockConfig config = RedisLockConfig.defaults().withKeyPrefix("rw")
            .withWaitTime(Duration.ofSeconds(5));

    private static final LockOptions READ = LockOptions.defaults().withType(LockType.READ);

    private static final LockOptions WRITE = LockOptions.defaults().withType(LockType.WRITE);

    private static final LockOptions NOW = LockOptions.defaults().withWaitTime(Duration.ZERO);

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
    }

    @AfterEach
    void close() {
        nodes.close();
    }

    @Test
    void readersShareAndExcludeWriters() throws Exception {
        RedisLockService a = nodes.node(server, config);
        RedisLockService b = nodes.node(server, config);
        LockHandle readA = a.lock("doc", READ);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        // a second reader on another node, and one on another thread of the same node, get in at once
        LockHandle readB = b.lock("doc", READ.withWaitTime(Duration.ZERO));
        LockHandle readA2 = pool.submit(() -> a.lock("doc", READ.withWaitTime(Duration.ZERO))).get(5, TimeUnit.SECONDS);
        RedisLockService c = nodes.node(server, config);
        assertThat(c.tryLock("doc", WRITE.withWaitTime(Duration.ZERO))).isEmpty();
        assertThat(c.tryLock("doc", NOW)).as("REENTRANT is exclusive too").isEmpty();

        Future<Long> writer = pool.submit(() -> {
            try (LockHandle write = c.lock("doc", WRITE.withWaitTime(Duration.ofSeconds(10)))) {
                return write.fencingToken();
            }
        });
        StringRedisTemplate redis = nodes.redis(server);
        await().atMost(Duration.ofSeconds(5)).until(() -> Boolean.TRUE.equals(redis.hasKey("rw:{doc}:waiters")));
        assertThat(nodes.node(server, config).tryLock("doc", READ.withWaitTime(Duration.ofMillis(50))))
                .as("a new reader does not overtake the waiting writer").isEmpty();
        readA.unlock();
        readB.unlock();
        assertThat(writer.isDone()).isFalse();
        readA2.unlock();
        assertThat(writer.get(5, TimeUnit.SECONDS)).isGreaterThan(readA.fencingToken());
        Optional<LockHandle> again = a.tryLock("doc", READ.withWaitTime(Duration.ofSeconds(1)));
        assertThat(again).isPresent();
        again.get().unlock();
        pool.shutdown();
    }

    @Test
    void writerExcludesReaders() {
        RedisLockService a = nodes.node(server, config);
        RedisLockService b = nodes.node(server, config);
        try (LockHandle write = a.lock("ledger", WRITE)) {
            assertThat(b.tryLock("ledger", READ.withWaitTime(Duration.ZERO))).isEmpty();
            try (LockHandle nested = a.lock("ledger", READ)) {
                assertThat(nested.fencingToken()).as("a writer may read reentrantly").isEqualTo(write.fencingToken());
            }
        }
        Optional<LockHandle> read = b.tryLock("ledger", READ.withWaitTime(Duration.ZERO));
        assertThat(read).isPresent();
        read.get().unlock();
    }

    @Test
    void readLockCannotBeUpgraded() {
        RedisLockService a = nodes.node(server, config);
        try (LockHandle read = a.lock("upgrade", READ)) {
            assertThatThrownBy(() -> a.lock("upgrade", WRITE)).isInstanceOf(LockException.class)
                    .hasMessageContaining("upgraded");
        }
    }

    @Test
    void watchdogRenewsReadLeasesAndCrashedReadersExpire() throws Exception {
        RedisLockConfig shortLease = config.withLeaseTime(Duration.ofSeconds(1));
        RedisLockService a = nodes.node(server, shortLease);
        RedisLockService b = nodes.node(server, shortLease);
        try (LockHandle read = a.lock("report", READ)) {
            Thread.sleep(3500); // the behaviour under test: reading for three leases
            assertThat(read.isHeld()).isTrue();
            assertThat(b.tryLock("report", WRITE.withWaitTime(Duration.ZERO))).isEmpty();
        }
        // a reader with a fixed lease that never releases stops counting when its lease ends
        LockHandle forgotten = a.lock("report", READ.withLeaseTime(Duration.ofMillis(200)));
        try (LockHandle write = b.lock("report", WRITE.withWaitTime(Duration.ofSeconds(3)))) {
            assertThat(write.isHeld()).isTrue();
        }
        await().atMost(Duration.ofSeconds(2)).until(() -> dev.distlock.LockContext.current().isEmpty());
        assertThat(forgotten.isHeld()).isFalse();
    }
}
