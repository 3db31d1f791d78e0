package dev.distlock.redis;

import dev.distlock.spi.Waiting;
import java.time.Duration;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockType;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.LockRequest;
import dev.distlock.test.support.LockHistory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.RedisCallback;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Fencing tokens keep increasing when Redis forgets the last writes: a restart from an older RDB snapshot brings
 * back stale lock keys, which must not make the store hand out tokens that were already issued.
 */
class RedisFencingTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private RedisServerProcess server;

    private final LockNodes nodes = new LockNodes();

    private final LockHistory history = new LockHistory();

    @BeforeEach
    void startRedis() {
        server = redisServers.start();
    }

    @AfterEach
    void close() {
        nodes.close();
        server.stop();
    }

    private StoreLockService node(Duration lease) {
        return nodes.node(server, LockConfig.defaults().withWaitTime(Duration.ofSeconds(10)).withLeaseTime(lease),
                LockNodes.redisConfig("fence"));
    }

    private void save() {
        nodes.redis(server).execute((RedisCallback<Object>) connection -> {
            connection.serverCommands().save();
            return null;
        });
    }

    private void holdOnce(StoreLockService node, String name, LockOptions options) {
        try (LockHandle handle = node.lock(name, options)) {
            history.hold(node.toString(), handle, () -> {
            });
        }
    }

    @Test
    void tokensStayAboveEveryIssuedTokenAfterARestartFromAnOlderSnapshot() {
        StoreLockService a = node(Duration.ofSeconds(30));
        holdOnce(a, "stock:1", LockOptions.defaults());
        save();
        holdOnce(a, "stock:1", LockOptions.defaults());
        holdOnce(a, "stock:1", LockOptions.defaults());
        server.kill(); // the last two grants are lost: Redis restarts from the snapshot
        server.start();
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> holdOnce(a, "stock:1", LockOptions.defaults()));
        assertThat(history.grants()).hasSize(4);
        history.assertConsistent();
    }

    @Test
    void aReservationRestoredFromASnapshotStillGivesItsWaiterAHigherToken() {
        StoreLockService a = node(Duration.ofSeconds(30));
        StringRedisTemplate redis = nodes.redis(server);
        holdOnce(a, "stock:3", LockOptions.defaults());
        long early = history.grants().get(0).fencingToken();
        LockRequest waiter = new LockRequest("stock:3", LockType.REENTRANT, "waiter", Duration.ZERO,
                Duration.ofSeconds(30), false);
        String reserved = "~waiter|" + HolderKeys.reference(waiter.holder()) + ":" + early;
        // A release reserved the lock for a waiter (token passed on) when the snapshot was taken.
        redis.opsForValue().set("fence:{stock:3}", reserved, Duration.ofMinutes(1));
        save();
        redis.delete("fence:{stock:3}");
        holdOnce(a, "stock:3", LockOptions.defaults());
        holdOnce(a, "stock:3", LockOptions.defaults());
        long lastIssued = history.grants().get(2).fencingToken();

        server.kill();
        server.start();
        assertThat(redis.opsForValue().get("fence:{stock:3}")).isEqualTo(reserved);
        RedisLockStore store = nodes.storeOf(a);
        Attempt attempt = await().atMost(Duration.ofSeconds(15)).ignoreExceptions()
                .until(() -> store.attempt(waiter, Waiting.LAST_TRY).toCompletableFuture().get(), Attempt.Granted.class::isInstance);
        assertThat(((Attempt.Granted) attempt).fencingToken()).isGreaterThan(lastIssued);
    }

    @Test
    void tokensStayAboveEveryIssuedTokenAfterARestartFromASnapshotOfAHeldLock() {
        StoreLockService a = node(Duration.ofSeconds(1));
        StringRedisTemplate redis = nodes.redis(server);
        LockHandle held = a.lock("stock:2", LockOptions.defaults().withLeaseTime(Duration.ofSeconds(2)));
        save(); // the snapshot holds "<owner>:<token>" of this holder
        held.unlock();
        holdOnce(a, "stock:2", LockOptions.defaults());
        holdOnce(a, "stock:2", LockOptions.defaults());
        long lastIssued = history.grants().get(history.grants().size() - 1).fencingToken();

        server.kill();
        server.start();
        assertThat(redis.opsForValue().get("fence:{stock:2}")).as("the stale holder is back")
                .endsWith(":" + held.fencingToken());
        // Its lease runs out; the next holder's token comes from the clock, above all issued ones.
        await().atMost(Duration.ofSeconds(15)).untilAsserted(() -> holdOnce(a, "stock:2", LockOptions.defaults()));
        assertThat(history.grants().get(history.grants().size() - 1).fencingToken()).isGreaterThan(lastIssued);
        history.assertConsistent();
    }

    @Test
    void tokensIncreaseAfterTheKeyOfAReleasedLockIsGone() {
        StoreLockService a = node(Duration.ofSeconds(30));
        StoreLockService b = node(Duration.ofSeconds(30));
        for (int i = 0; i < 20; i++) {
            holdOnce(i % 2 == 0 ? a : b, "idle", LockOptions.defaults());
            assertThat(nodes.redis(server).hasKey("fence:{idle}")).isFalse();
        }
        history.assertConsistent();
    }
}
