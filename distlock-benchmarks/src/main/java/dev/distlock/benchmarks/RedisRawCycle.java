package dev.distlock.benchmarks;

import java.util.UUID;

import dev.distlock.test.support.RawCycle;
import io.lettuce.core.RedisClient;
import io.lettuce.core.ScriptOutputType;
import io.lettuce.core.SetArgs;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.api.sync.RedisCommands;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Redis's raw cycle: {@code SET key token NX PX} to take, a compare-and-delete script ({@code EVALSHA}) to give
 * back, a waiter polls. Each node opens what the Redis store's node opens: a Spring Data Redis
 * {@link LettuceConnectionFactory} and, from its Lettuce client, one connection of its own that every thread's
 * commands share (Lettuce pipelines them), as the store's lock path does.
 */
final class RedisRawCycle implements RawCycle {

    private static final String RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then "
            + "return redis.call('del', KEYS[1]) else return 0 end";

    private final RedisTarget target;

    RedisRawCycle(RedisTarget target) {
        this.target = target;
    }

    @Override
    public String recipe() {
        return "`SET NX PX` + compare-and-delete `EVALSHA`; waiters poll (Lettuce, one connection per node)";
    }

    @Override
    public Node node() {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(target.host(), target.port()));
        factory.afterPropertiesSet();
        factory.start();
        StatefulRedisConnection<String, String> connection = ((RedisClient) factory.getRequiredNativeClient())
                .connect();
        RedisCommands<String, String> redis = connection.sync();
        String release = redis.scriptLoad(RELEASE);
        return new Node() {
            @Override
            public Held acquire(String name) {
                String token = UUID.randomUUID().toString();
                while (redis.set(name, token, SetArgs.Builder.nx().px(LEASE_MILLIS)) == null) {
                    RawCycle.backOff();
                }
                return () -> redis.evalsha(release, ScriptOutputType.INTEGER, new String[] { name }, token);
            }

            @Override
            public void close() {
                connection.close();
                factory.destroy();
            }
        };
    }
}
