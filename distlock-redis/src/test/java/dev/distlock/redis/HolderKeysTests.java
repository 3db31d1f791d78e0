package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Base64;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import dev.distlock.LockHandle;
import dev.distlock.LockInfo;
import dev.distlock.LockType;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.spi.LockRequest;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The holder identity kept once per instance ({@link HolderKeys}), against a real Redis: a held lock's value fits
 * an embedded string whatever the identity, the identity is written once and not with every lock, colliding
 * references are both described, a closing store drops its own identity, and older values are still described.
 */
class HolderKeysTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    /** As long as cloud host names make them: the value must not grow with it. */
    private static final String IDENTITY = "orders-service@ip-10-0-12-34.eu-west-1.compute.internal:12345";

    private final LockNodes nodes = new LockNodes();

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
    }

    @AfterEach
    void close() {
        nodes.close();
    }

    private StoreLockService node(String identity) {
        return nodes.node(server, LockConfig.defaults().withWaitTime(Duration.ofSeconds(5)).withInstanceId(identity),
                LockNodes.redisConfig("holders"));
    }

    private static String holderKey(String identity) {
        return "holders:holder:" + HolderKeys.reference(identity);
    }

    @Test
    void aHeldLocksValueIsAnEmbeddedStringWhateverTheIdentity() {
        StoreLockService node = node(IDENTITY);
        StringRedisTemplate redis = nodes.redis(server);
        try (LockHandle held = node.lock("order:42")) {
            assertThat(redis.opsForValue().get("holders:{order:42}")).hasSize(44)
                    .endsWith("|" + HolderKeys.reference(IDENTITY) + ":" + held.fencingToken());
            assertThat(server.call("OBJECT", "ENCODING", "holders:{order:42}")).isEqualTo("embstr");
            LockInfo info = node(IDENTITY + "-other").describe("order:42").orElseThrow();
            assertThat(info.holder()).isEqualTo(IDENTITY);
            assertThat(info.fencingToken()).isEqualTo(held.fencingToken());
        }
    }

    @Test
    void theIdentityIsWrittenWithTheFirstLockNotWithEveryLock() {
        StoreLockService node = node(IDENTITY);
        StringRedisTemplate redis = nodes.redis(server);
        node.lock("first").unlock(); // writes the identity (and loads the scripts)
        assertThat(redis.<String, String>opsForHash().entries(holderKey(IDENTITY))).containsOnlyKeys(IDENTITY);
        assertThat(redis.getExpire(holderKey(IDENTITY), TimeUnit.MILLISECONDS))
                .isBetween(HolderKeys.KEEP_MILLIS - 60_000, HolderKeys.KEEP_MILLIS);
        long before = LockNodes.calls(redis, "evalsha") + LockNodes.calls(redis, "eval");
        for (int i = 0; i < 20; i++) {
            node.lock("next:" + i).unlock();
        }
        assertThat(LockNodes.calls(redis, "evalsha") + LockNodes.calls(redis, "eval") - before)
                .as("an acquire and a release per lock, nothing more").isEqualTo(40);
    }

    /**
     * The first request of an identity goes out only once the identity is in Redis, even when its write is the
     * slower (a pooled client sends the two on different connections; on Cluster the holder key is on another
     * shard): here the write is held back 300 ms on its way, and the request reads what {@code describe} would.
     */
    @Test
    void theFirstRequestOfAnIdentityWaitsUntilItsHolderCanBeDescribed() throws Exception {
        try (RedisRunner runner = new ConnectionRunner(nodes.factory(server), Duration.ofSeconds(2))) {
            HolderKeys holders = new HolderKeys(new SlowHolderWrites(runner), "first");
            LockRequest request = new LockRequest("first-lock", LockType.REENTRANT, "token", Duration.ZERO,
                    Duration.ofSeconds(30), false, 1, IDENTITY);
            String described = holders.afterIdentity(request,
                    owner -> HolderKeys.identity(runner, "first", HolderKeys.reference(IDENTITY)))
                    .get(5, TimeUnit.SECONDS);
            assertThat(described).isEqualTo(IDENTITY);
        }
    }

    /** Holds each write of a holder key back for 300 ms on its way to Redis; everything else goes straight on. */
    private record SlowHolderWrites(RedisRunner runner) implements RedisRunner {

        @Override
        public CompletableFuture<Object> eval(LuaScript script, byte[][] keys, byte[]... args) {
            if (script != HolderKeys.HOLDER || args.length == 0) {
                return runner.eval(script, keys, args);
            }
            return CompletableFuture.runAsync(() -> { }, CompletableFuture.delayedExecutor(300, TimeUnit.MILLISECONDS))
                    .thenCompose(delayed -> runner.eval(script, keys, args));
        }

        @Override
        public CompletableFuture<Long> publish(byte[] channel, byte[] message) {
            return runner.publish(channel, message);
        }

        @Override
        public CompletableFuture<String> ping() {
            return runner.ping();
        }

        @Override
        public boolean isCluster() {
            return runner.isCluster();
        }

        @Override
        public void close() {
            runner.close();
        }
    }

    @Test
    void identitiesWhoseReferencesCollideAreBothNamed() {
        String[] pair = collidingIdentities();
        StoreLockService first = node(pair[0]);
        StoreLockService second = node(pair[1]);
        second.lock("warm-up").unlock(); // the second identity joins the key
        try (LockHandle held = first.lock("collided")) {
            assertThat(second.describe("collided").orElseThrow().holder()).isEqualTo(pair[0] + " or " + pair[1]);
        }
    }

    @Test
    void aClosingStoreDropsItsIdentityAndOnlyItsOwn() {
        String[] pair = collidingIdentities();
        StoreLockService first = node(pair[0]);
        StoreLockService second = node(pair[1]);
        first.lock("a").unlock();
        second.lock("b").unlock();
        StringRedisTemplate redis = nodes.redis(server);
        first.close();
        assertThat(redis.<String, String>opsForHash().entries(holderKey(pair[0]))).containsOnlyKeys(pair[1]);
        second.close();
        assertThat(redis.hasKey(holderKey(pair[0]))).isFalse();
    }

    @Test
    void aLockWhoseHolderKeyIsGoneHasAnUnknownHolder() {
        StoreLockService node = node(IDENTITY);
        try (LockHandle held = node.lock("lost-holder")) {
            nodes.redis(server).delete(holderKey(IDENTITY)); // a failover lost it, say
            assertThat(node.describe("lost-holder").orElseThrow().holder()).isEqualTo(LockInfo.UNKNOWN_HOLDER);
        }
    }

    @Test
    void aHolderKeyThatCannotBeReadLeavesTheHolderUnknownNotTheDescription() {
        StoreLockService node = node(IDENTITY);
        try (LockHandle held = node.lock("unreadable-holder")) {
            nodes.redis(server).opsForValue().set(holderKey(IDENTITY), "not a hash"); // WRONGTYPE for holder.lua
            LockInfo info = node.describe("unreadable-holder").orElseThrow();
            assertThat(info.holder()).isEqualTo(LockInfo.UNKNOWN_HOLDER);
            assertThat(info.fencingToken()).isEqualTo(held.fencingToken());
        }
    }

    @Test
    void anOlderVersionsValueWithTheIdentityInsideIsDescribed() {
        String encoded = Base64.getUrlEncoder().withoutPadding().encodeToString(
                IDENTITY.getBytes(StandardCharsets.UTF_8));
        nodes.redis(server).opsForValue().set("holders:{older}", "AAAAAAAAAAAAAAAAAAAAAA|" + encoded + ":1700000000000001",
                Duration.ofSeconds(30));
        LockInfo info = node("reader").describe("older").orElseThrow();
        assertThat(info.holder()).isEqualTo(IDENTITY);
        assertThat(info.fencingToken()).isEqualTo(1700000000000001L);
    }

    /** Two identities with one reference (24 bits: a few thousand tries), in their described order. */
    private static String[] collidingIdentities() {
        Map<String, String> seen = new HashMap<>();
        for (int pid = 1;; pid++) {
            String identity = "app@host:" + pid;
            String earlier = seen.putIfAbsent(HolderKeys.reference(identity), identity);
            if (earlier != null) {
                return earlier.compareTo(identity) < 0 ? new String[] { earlier, identity }
                        : new String[] { identity, earlier };
            }
        }
    }
}
