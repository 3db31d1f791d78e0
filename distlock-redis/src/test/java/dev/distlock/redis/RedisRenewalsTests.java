package dev.distlock.redis;

import java.time.Duration;
import java.util.List;

import dev.distlock.LockType;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.RenewalResult;
import dev.distlock.spi.Waiting;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * One {@code renew.lua} call for leases of every mode ({@link RedisRenewals}), on a real Redis: each lease sends only
 * the keys its mode reads (the lock key; readers for a read lease; readers and permits for a permit), and the script
 * walks them lease by lease, whatever the mix.
 */
class RedisRenewalsTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    private final LockNodes nodes = new LockNodes();

    private RedisLockStore store;

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
    }

    @AfterEach
    void close() {
        store.close();
        nodes.close();
    }

    @Test
    void oneCallRenewsLeasesOfEveryModeEachWithTheKeysItNeeds() {
        store = new RedisLockStore(nodes.factory(server), LockNodes.redisConfig("renew"));
        StringRedisTemplate redis = nodes.redis(server);
        Lease read = granted("read", LockType.READ, 1);
        Lease lock = granted("lock", LockType.REENTRANT, 1);
        Lease permitGone = granted("permit-gone", LockType.REENTRANT, 2);
        Lease permit = granted("permit", LockType.REENTRANT, 3);
        Lease gone = granted("gone", LockType.REENTRANT, 1);
        Lease readGone = granted("read-gone", LockType.READ, 1);
        Lease taken = granted("taken", LockType.REENTRANT, 1);
        for (Lease released : List.of(permitGone, gone, readGone)) {
            store.release(released).toCompletableFuture().join();
        }
        // Expired and taken by an owner whose token starts with this lease's owner: not this lease's.
        String owner = taken.request().ownerToken() + "|" + HolderKeys.reference(taken.request().holder());
        redis.opsForValue().set("renew:{taken}", owner + "X:1", Duration.ofSeconds(30));
        for (String key : List.of("renew:{read}", "renew:{read}:readers", "renew:{lock}", "renew:{permit}",
                "renew:{permit}:readers", "renew:{permit}:permits")) {
            redis.expire(key, Duration.ofSeconds(2)); // what a renewal must lift back to the lease
        }
        server.call("SLOWLOG", "RESET");
        server.call("CONFIG", "SET", "slowlog-log-slower-than", "0");
        List<RenewalResult> results = store.renew(List.of(read, lock, permitGone, permit, gone, readGone, taken))
                .toCompletableFuture().join();
        server.call("CONFIG", "SET", "slowlog-log-slower-than", "10000");

        assertThat(results).containsExactly(RenewalResult.RENEWED, RenewalResult.RENEWED, RenewalResult.LOST,
                RenewalResult.RENEWED, RenewalResult.LOST, RenewalResult.LOST, RenewalResult.LOST);
        for (String key : List.of("renew:{read}", "renew:{read}:readers", "renew:{lock}", "renew:{permit}",
                "renew:{permit}:readers", "renew:{permit}:permits")) {
            assertThat(redis.getExpire(key)).as(key).isGreaterThan(20);
        }
        assertThat(renewCallKeys()).as("read 2 + lock 1 + permit 3 + permit 3 + lock 1 + read 2 + lock 1").isEqualTo(13);
    }

    private Lease granted(String name, LockType type, int permits) {
        LockRequest request = new LockRequest(name, type, "token-" + name, Duration.ZERO, Duration.ofSeconds(30),
                true, permits);
        Attempt attempt = store.attempt(request, Waiting.LAST_TRY).toCompletableFuture().join();
        return new TestLease(request, ((Attempt.Granted) attempt).fencingToken());
    }

    /** The key count of the {@code renew.lua} call in the slow log (every command is logged while it runs). */
    private static long renewCallKeys() {
        for (Object entry : (List<?>) server.call("SLOWLOG", "GET", "100")) {
            List<?> args = (List<?>) ((List<?>) entry).get(3);
            if ("evalsha".equalsIgnoreCase(String.valueOf(args.get(0)))
                    && LuaScript.RENEW.sha1().equals(String.valueOf(args.get(1)))) {
                return Long.parseLong(String.valueOf(args.get(2)));
            }
        }
        throw new AssertionError("no renew.lua call in the slow log");
    }
}
