package dev.distlock.benchmarks;

import java.time.Duration;
import java.util.UUID;

import dev.distlock.test.support.StoreFixtures;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

/**
 * The textbook lock: {@code SET key token NX PX 30000}, retried every 100 ms while taken, released by a Lua
 * compare-and-delete. No renewal.
 */
final class TextbookContender implements LockContender {

    private static final String RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
            + "return redis.call('del', KEYS[1]) else return 0 end";

    @Override
    public String name() {
        return "SET NX PX (textbook)";
    }

    @Override
    public String version() {
        return "Lettuce " + StoreFixtures.version("io.lettuce", "lettuce-core", RedisClient.class)
                + ", 100 ms polling, 30 s lease";
    }

    @Override
    public boolean renewsLeases() {
        return false;
    }

    @Override
    public LockClient connect(RedisTarget target, Duration watchdogLease) {
        RedisClient client = RedisClient.create(target.uri());
        StatefulRedisConnection<String, String> connection = client.connect();
        RedisCommands<String, String> redis = connection.sync();
        String releaseSha = redis.scriptLoad(RELEASE);
        return new LockClient() {
            @Override
            public Held acquire(String name) throws InterruptedException {
                String token = UUID.randomUUID().toString();
                long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                while (redis.set(name, token, SetArgs.Builder.nx().px(30_000)) == null) {
                    if (System.nanoTime() > deadline) {
                        throw new IllegalStateException("not acquired within 60 s: " + name);
                    }
                    Thread.sleep(100);
                }
                return () -> redis.evalsha(releaseSha, ScriptOutputType.INTEGER, new String[] { name }, token);
            }

            @Override
            public String redisKey(String name) {
                return name;
            }

            @Override
            public void close() {
                connection.close();
                client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
            }
        };
    }
}
