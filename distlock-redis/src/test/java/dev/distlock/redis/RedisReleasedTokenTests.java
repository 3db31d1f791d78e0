package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

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
import static org.awaitility.Awaitility.await;

/**
 * A store whose releases keep the released token ({@link RedisLockConfig#keepsReleasedTokens()}, as each Redlock
 * master's does): the released lock leaves {@code "!<token>"} for a second (the lease, when shorter), and that is a free name to
 * everyone, whose next token is above it, whatever the lock type. {@code RedlockClockTests} shows why, on masters
 * whose clocks disagree.
 */
class RedisReleasedTokenTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    private static final Duration LEASE = Duration.ofSeconds(2);

    /** A token far above the server clock (µs), as another master whose clock is ahead issues it. */
    private static final long AHEAD = 9_000_000_000_000_000L;

    private final LockNodes nodes = new LockNodes();

    private final LockConfig config = LockConfig.defaults().withWaitTime(Duration.ofSeconds(5)).withLeaseTime(LEASE);

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
    }

    @AfterEach
    void close() {
        nodes.close();
    }

    private StoreLockService node() {
        return nodes.node(server, config, LockNodes.redisConfig("kept").withReleasedTokensKept());
    }

    @Test
    void aReleaseKeepsTheTokenForTheLeaseAndTheNameIsFree() {
        StoreLockService a = node();
        StringRedisTemplate redis = nodes.redis(server);
        LockHandle handle = a.lock("released");
        handle.unlock();
        assertThat(redis.opsForValue().get("kept:{released}")).isEqualTo("!" + handle.fencingToken());
        assertThat(redis.getExpire("kept:{released}", TimeUnit.MILLISECONDS)).as("a second, within the 2 s lease")
                .isBetween(1L, RedisLockStore.KEPT_TOKEN_MILLIS);
        assertThat(a.describe("released")).as("free to describe").isEmpty();
        assertThat(a.forceRelease("released")).as("nobody to force out").isFalse();
        assertThat(redis.opsForValue().get("kept:{released}")).as("the force release kept it")
                .isEqualTo("!" + handle.fencingToken());
        await("the kept token expires with the lease").atMost(Duration.ofSeconds(10))
                .until(() -> !Boolean.TRUE.equals(redis.hasKey("kept:{released}")));
    }

    @Test
    void theNextTokenIsAboveTheKeptOneForEveryLockType() {
        StoreLockService a = node();
        StringRedisTemplate redis = nodes.redis(server);
        LockOptions now = LockOptions.defaults().withWaitTime(Duration.ZERO);
        redis.opsForValue().set("kept:{exclusive}", "!" + AHEAD, LEASE);
        redis.opsForValue().set("kept:{shared}", "!" + AHEAD, LEASE);
        // As an older version's refusal leaves it: it took the kept token for a held lock and flagged it.
        redis.opsForValue().set("kept:{permits}", "!" + AHEAD + "+", LEASE);
        try (LockHandle exclusive = a.tryLock("exclusive", now).orElseThrow();
                LockHandle shared = a.tryLock("shared", now.withType(LockType.READ)).orElseThrow();
                LockHandle permit = a.tryLock("permits", now.withPermits(2)).orElseThrow()) {
            assertThat(exclusive.fencingToken()).isEqualTo(AHEAD + 1);
            assertThat(shared.fencingToken()).isEqualTo(AHEAD + 1);
            assertThat(permit.fencingToken()).isEqualTo(AHEAD + 1);
        }
    }

    @Test
    void aStoreThatKeepsNoTokenLeavesNoKey() {
        StoreLockService plain = nodes.node(server, config, LockNodes.redisConfig("plain"));
        plain.lock("released").unlock();
        assertThat(nodes.redis(server).hasKey("plain:{released}")).isFalse();
    }
}
