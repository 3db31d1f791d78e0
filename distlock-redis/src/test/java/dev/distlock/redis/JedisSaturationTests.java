package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.regex.Pattern;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.listener.LockListener;
import org.apache.commons.pool2.impl.GenericObjectPoolConfig;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.jedis.JedisClientConfiguration;
import org.springframework.data.redis.connection.jedis.JedisConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * The Jedis lock path when Redis stalls or the application has exhausted the connection pool (its borrow waits
 * forever by default): the lock path keeps a bounded number of threads, fails closed with
 * {@link LockUnavailableException} once they and their queue are taken, and works again afterwards.
 */
class JedisSaturationTests {

    private static final Logger log = LoggerFactory.getLogger(JedisSaturationTests.class);

    private static final Pattern LOCK_PATH_THREAD = Pattern.compile("distlock-redis-\\d+");

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    private final List<AutoCloseable> toClose = new ArrayList<>();

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
    }

    @AfterEach
    void close() throws Exception {
        for (int i = toClose.size() - 1; i >= 0; i--) {
            toClose.get(i).close();
        }
    }

    /** A pooled Jedis factory with {@code maxTotal} connections whose borrow blocks forever when exhausted. */
    private JedisConnectionFactory factory(int maxTotal) {
        GenericObjectPoolConfig<?> pool = new GenericObjectPoolConfig<>();
        pool.setMaxTotal(maxTotal);
        pool.setMaxIdle(maxTotal);
        pool.setBlockWhenExhausted(true); // spring.data.redis.jedis.pool.max-wait=-1, the default
        JedisConnectionFactory factory = new JedisConnectionFactory(
                new RedisStandaloneConfiguration(server.host(), server.port()),
                JedisClientConfiguration.builder().readTimeout(Duration.ofSeconds(5)).usePooling()
                        .poolConfig(pool).build());
        factory.afterPropertiesSet();
        factory.start();
        toClose.add(factory::destroy);
        return factory;
    }

    private static long lockPathThreads() {
        return Thread.getAllStackTraces().keySet().stream()
                .filter(thread -> thread.isAlive() && LOCK_PATH_THREAD.matcher(thread.getName()).matches()).count();
    }

    @Test
    void aStalledRedisKeepsTheLockPathBoundedAndFailsClosed() throws Exception {
        JedisConnectionFactory factory = factory(4);
        StoreLockService node = new StoreLockService(
                new RedisLockStore(factory, LockNodes.redisConfig("sat").withCommandTimeout(Duration.ofMillis(300))),
                LockConfig.defaults(), LockListener.NONE);
        node.start();
        toClose.add(node::close);
        node.lock("warm").unlock();

        server.pause(); // every call now blocks on its read (5 s) or on the borrow of a pooled connection
        int callers = 40;
        ExecutorService pool = Executors.newFixedThreadPool(callers);
        toClose.add(pool::shutdownNow);
        long peakThreads = 0;
        try {
            List<Future<?>> calls = new ArrayList<>();
            for (int i = 0; i < callers; i++) {
                String name = "stalled-" + i;
                calls.add(pool.submit(() -> assertThatThrownBy(
                        () -> node.tryLock(name, LockOptions.defaults().withWaitTime(Duration.ZERO)))
                        .isInstanceOf(LockUnavailableException.class)));
            }
            for (Future<?> call : calls) {
                peakThreads = Math.max(peakThreads, lockPathThreads());
                call.get();
            }
            peakThreads = Math.max(peakThreads, lockPathThreads());
            log.info("Redis stalled, Jedis pool of 4, {} concurrent tryLock calls: {} lock-path threads", callers,
                    peakThreads);
            // One thread per pooled connection: more would only wait for a connection that is not there.
            assertThat(peakThreads).as("lock-path threads while Redis is stalled").isLessThanOrEqualTo(4);
        }
        finally {
            server.resume();
        }
        // Redis answers again: locking works again, no stale call stands in the way.
        await().atMost(Duration.ofSeconds(10)).untilAsserted(() -> {
            try (LockHandle handle = node.tryLock("after", LockOptions.defaults().withWaitTime(Duration.ZERO))
                    .orElseThrow()) {
                assertThat(handle.fencingToken()).isPositive();
            }
        });
    }

    @Test
    void aFullQueueFailsAtOnceNamingTheBound() throws Exception {
        JedisConnectionFactory factory = factory(1);
        ConnectionRunner runner = new ConnectionRunner(factory, Duration.ofSeconds(5), 1, 2);
        toClose.add(runner::close);
        RedisConnection taken = factory.getConnection();
        try {
            List<CompletableFuture<String>> pings = new ArrayList<>();
            for (int i = 0; i < 5; i++) {
                pings.add(runner.ping());
            }
            // One call runs (waiting for a connection), two wait in the queue, the other two fail at once.
            long failedAtOnce = pings.stream().filter(CompletableFuture::isCompletedExceptionally).count();
            assertThat(failedAtOnce).isEqualTo(2);
            assertThatThrownBy(() -> pings.get(4).join()).hasCauseInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("1 thread").hasMessageContaining("2 queued");
            taken.close();
            taken = null;
            for (int i = 0; i < 3; i++) {
                assertThat(pings.get(i).get()).isEqualTo("PONG");
            }
        }
        finally {
            if (taken != null) {
                taken.close();
            }
        }
    }
}
