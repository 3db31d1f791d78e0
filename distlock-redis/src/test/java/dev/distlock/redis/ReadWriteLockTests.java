package dev.distlock.redis;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockType;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
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

    private final LockConfig config = LockConfig.defaults().withWaitTime(Duration.ofSeconds(5));

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

    private StoreLockService node() {
        return node(config);
    }

    private StoreLockService node(LockConfig lockConfig) {
        return nodes.node(server, lockConfig, LockNodes.redisConfig("rw"));
    }

    @Test
    void readersShareAndExcludeWriters() throws Exception {
        StoreLockService a = node();
        StoreLockService b = node();
        LockHandle readA = a.lock("doc", READ);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        // a second reader on another node, and one on another thread of the same node, get in at once
        LockHandle readB = b.lock("doc", READ.withWaitTime(Duration.ZERO));
        LockHandle readA2 = pool.submit(() -> a.lock("doc", READ.withWaitTime(Duration.ZERO))).get(5, TimeUnit.SECONDS);
        StoreLockService c = node();
        assertThat(c.tryLock("doc", WRITE.withWaitTime(Duration.ZERO))).isEmpty();
        assertThat(c.tryLock("doc", NOW)).as("REENTRANT is exclusive too").isEmpty();

        Future<Long> writer = pool.submit(() -> {
            try (LockHandle write = c.lock("doc", WRITE.withWaitTime(Duration.ofSeconds(10)))) {
                return write.fencingToken();
            }
        });
        StringRedisTemplate redis = nodes.redis(server);
        await().atMost(Duration.ofSeconds(5)).until(() -> Boolean.TRUE.equals(redis.hasKey("rw:{doc}:writer")));
        assertThat(node().tryLock("doc", READ.withWaitTime(Duration.ofMillis(50))))
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
    void writerExcludesReadersAndMayReadInItsScope() {
        StoreLockService a = node();
        StoreLockService b = node();
        a.runWithLock("ledger", WRITE, () -> {
            assertThat(b.tryLock("ledger", READ.withWaitTime(Duration.ZERO))).isEmpty();
            try (LockHandle nested = a.lock("ledger", READ)) {
                assertThat(nested.isHeld()).as("a writer may read reentrantly").isTrue();
            }
        });
        Optional<LockHandle> read = b.tryLock("ledger", READ.withWaitTime(Duration.ZERO));
        assertThat(read).isPresent();
        read.get().unlock();
    }

    @Test
    void readLockCannotBeUpgradedInItsScope() {
        StoreLockService a = node();
        a.runWithLock("upgrade", READ, () -> assertThatThrownBy(() -> a.lock("upgrade", WRITE))
                .isInstanceOf(LockException.class).hasMessageContaining("upgraded"));
    }

    @Test
    void aWriterThatGaveUpDoesNotKeepReadersOut() throws Exception {
        StoreLockService a = node();
        StoreLockService writerNode = node();
        StringRedisTemplate redis = nodes.redis(server);
        LockHandle reader = a.lock("report", READ);
        CountDownLatch started = new CountDownLatch(1);
        Thread writer = new Thread(() -> {
            started.countDown();
            try {
                writerNode.lock("report", WRITE.withWaitTime(Duration.ofSeconds(30))).unlock();
            }
            catch (LockException ex) {
                // interrupted: gave up
            }
        });
        writer.start();
        started.await();
        await().atMost(Duration.ofSeconds(5)).until(() -> Boolean.TRUE.equals(redis.hasKey("rw:{report}:writer")));
        StoreLockService readerNode = node();
        writer.interrupt();
        writer.join(5000);
        // Well before the intent would expire by itself (it lives 1 s after the writer's last attempt).
        Optional<LockHandle> anotherReader = await().atMost(Duration.ofMillis(400)).until(
                () -> readerNode.tryLock("report", READ.withWaitTime(Duration.ZERO)), Optional::isPresent);
        assertThat(redis.hasKey("rw:{report}:writer")).as("the gone writer's intent").isFalse();
        anotherReader.get().unlock();
        reader.unlock();
    }

    @Test
    void aReaderQueuedBehindAWriterDoesNotPollRedis() throws Exception {
        StoreLockService a = node();
        StoreLockService writerNode = node();
        StoreLockService readerNode = node();
        StringRedisTemplate redis = nodes.redis(server);
        LockHandle reader = a.lock("poll", READ);
        ExecutorService pool = Executors.newFixedThreadPool(2);
        Future<?> writer = pool.submit(() -> writerNode.lock("poll", WRITE.withWaitTime(Duration.ofSeconds(10)))
                .unlock());
        await().atMost(Duration.ofSeconds(5)).until(() -> Boolean.TRUE.equals(redis.hasKey("rw:{poll}:writer")));
        Future<?> queued = pool.submit(() -> readerNode.lock("poll", READ.withWaitTime(Duration.ofSeconds(10)))
                .unlock());
        long before = LockNodes.calls(redis, "evalsha");
        Thread.sleep(1000); // the behaviour under test: how often the queued requests ask Redis in a second
        long calls = LockNodes.calls(redis, "evalsha") - before;
        assertThat(calls).as("re-checks in one second by a queued reader and a queued writer").isLessThan(12);
        reader.unlock();
        writer.get(10, TimeUnit.SECONDS);
        queued.get(10, TimeUnit.SECONDS);
        pool.shutdown();
    }

    @Test
    void watchdogRenewsReadLeasesAndForgottenReadersExpire() throws Exception {
        LockConfig shortLease = config.withLeaseTime(Duration.ofSeconds(1));
        StoreLockService a = node(shortLease);
        StoreLockService b = node(shortLease);
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
        assertThat(forgotten.isHeld()).isFalse();
    }
}
