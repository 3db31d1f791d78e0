package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.fencing.FencingTokens;
import dev.distlock.fencing.StaleTokenException;
import dev.distlock.redis.fencing.FencedRedis;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Guarded values on a real Redis: a value keeps the highest fencing token that wrote it, an equal token writes
 * again, a lower one changes nothing and throws, a delete keeps the token, tokens beyond Lua's exact doubles compare
 * right, and the token comes from the lock scope (of a Redis lock here) when none is passed.
 */
class FencedRedisTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private final LockNodes nodes = new LockNodes();

    private RedisServerProcess server;

    private StringRedisTemplate redis;

    private FencedRedis fenced;

    @BeforeEach
    void startRedis() {
        server = redisServers.start();
        redis = nodes.redis(server);
        fenced = new FencedRedis(redis);
    }

    @AfterEach
    void close() {
        nodes.close();
        server.stop();
    }

    @Test
    void aValueKeepsTheHighestTokenAndALowerOneChangesNothing() {
        fenced.set(5, "report", "v5");
        fenced.set(5, "report", "v5 again");
        fenced.set(7, "report", "v7");
        assertThatThrownBy(() -> fenced.set(6, "report", "v6")).isInstanceOfSatisfying(StaleTokenException.class,
                stale -> {
                    assertThat(stale.token()).isEqualTo(6);
                    assertThat(stale.seenToken()).hasValue(7);
                    assertThat(stale).hasMessageContaining("Redis key report").hasMessageContaining("changed nothing");
                });
        assertThat(fenced.get("report")).hasValue("v7");
        assertThat(fenced.fence("report")).hasValue(7);
        assertThat(redis.<String, String>opsForHash().entries("report"))
                .containsEntry(FencedRedis.VALUE_FIELD, "v7").containsEntry(FencedRedis.FENCE_FIELD, "7");
        assertThat(fenced.get("absent")).isEmpty();
        assertThat(fenced.fence("absent")).isEmpty();
    }

    @Test
    void aDeleteKeepsTheTokenSoAStaleHolderCannotWriteTheValueBack() {
        fenced.set(10, "report", "v10");
        fenced.delete(11, "report");
        assertThat(fenced.get("report")).isEmpty();
        assertThat(fenced.fence("report")).hasValue(11);
        assertThatThrownBy(() -> fenced.set(10, "report", "v10 again")).isInstanceOf(StaleTokenException.class);
        assertThatThrownBy(() -> fenced.delete(9, "report")).isInstanceOf(StaleTokenException.class);
        assertThat(fenced.get("report")).isEmpty();
        fenced.set(12, "report", "v12");
        assertThat(fenced.get("report")).hasValue("v12");
    }

    @Test
    void tokensBeyondTheExactDoublesOfLuaCompareAsNumbers() {
        // 2^53 + 1 and 2^53 are the same double in Lua; as numbers the first is higher.
        long above = (1L << 53) + 1;
        fenced.set(above, "big", "a");
        assertThatThrownBy(() -> fenced.set(above - 1, "big", "b")).isInstanceOf(StaleTokenException.class);
        fenced.set(Long.MAX_VALUE, "big", "c");
        assertThatThrownBy(() -> fenced.set(999, "big", "d")).isInstanceOf(StaleTokenException.class);
        assertThat(fenced.get("big")).hasValue("c");
        assertThat(fenced.fence("big")).hasValue(Long.MAX_VALUE);
        assertThatIllegalArgumentException().isThrownBy(() -> fenced.set(-1, "big", "e"));
    }

    @Test
    void theTokenComesFromTheLockScope() {
        StoreLockService a = nodes.node(server, LockConfig.defaults().withWaitTime(Duration.ofSeconds(5)),
                LockNodes.redisConfig("fenced"));
        StoreLockService b = nodes.node(server, LockConfig.defaults().withWaitTime(Duration.ofSeconds(5)),
                LockNodes.redisConfig("fenced"));
        long first = a.executeWithLock("report", () -> {
            fenced.set("report-value", "from a");
            return FencingTokens.current();
        });
        long second = b.executeWithLock("report", () -> {
            fenced.set("report-value", "from b");
            return FencingTokens.current();
        });
        assertThat(second).isGreaterThan(first);
        assertThat(fenced.fence("report-value")).hasValue(second);
        // The first holder, its lock long gone, is refused.
        assertThatThrownBy(() -> fenced.set(first, "report-value", "from a, late"))
                .isInstanceOf(StaleTokenException.class);
        assertThat(fenced.get("report-value")).hasValue("from b");
        assertThatIllegalStateException().isThrownBy(() -> fenced.set("report-value", "no scope"))
                .withMessageContaining("No lock scope");
        assertThatIllegalStateException().isThrownBy(() -> fenced.delete("report-value"))
                .withMessageContaining("No lock scope");
        assertThat(fenced.get("report-value")).hasValue("from b");
    }
}
