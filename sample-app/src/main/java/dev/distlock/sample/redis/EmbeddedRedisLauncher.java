package dev.distlock.sample.redis;

import java.time.Duration;
import java.util.Map;

import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.sample.EmbeddedServerLauncher;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.env.ConfigurableEnvironment;
import org.springframework.core.env.MapPropertySource;
import org.springframework.util.StringUtils;

/**
 * Starts an embedded {@code redis-server} for the sample when no Redis is there, so the sample needs nothing but a
 * JDK.
 * <p>
 * Runs when the environment is ready, before any bean (and so before the Redis connection factory) exists. It
 * starts a server on {@code spring.data.redis.port} only when all of these hold:
 * <ul>
 * <li>{@code sample.embedded-redis} is {@code true} (the default);</li>
 * <li>the lock store is Redis ({@code distlock.store=redis}, the sample's default): with another store
 * ({@code jdbc}, {@code zookeeper}) no Redis is started, and the Redis health check is off so that the instance is
 * healthy without one;</li>
 * <li>no other Redis is configured: no {@code spring.data.redis.url}, Sentinel, Cluster or password, and
 * {@code spring.data.redis.host} is a loopback address;</li>
 * <li>nothing listens on that port yet.</li>
 * </ul>
 * So the first local instance starts the server and later instances join it. The instance that started the
 * server owns it: the server stops when that instance stops, also when other instances still use it (they then
 * answer 503 until a Redis is back on the port). Registered in {@code META-INF/spring.factories}.
 */
public class EmbeddedRedisLauncher extends EmbeddedServerLauncher<RedisServerProcess> {

    /** Property that turns the embedded server off. */
    public static final String ENABLED_PROPERTY = "sample.embedded-redis";

    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisLauncher.class);

    /** Longer than Spring's shutdown phases take by default (30 s each, distlock's within one). */
    private static final Duration SHUTDOWN_GRACE = Duration.ofSeconds(60);

    @Override
    protected RedisServerProcess startIfNeeded(ConfigurableEnvironment env) {
        if (!"redis".equals(lockStore(env))) {
            log.info("Lock store {}: no embedded Redis started", lockStore(env));
            env.getPropertySources().addFirst(new MapPropertySource("sample-without-redis",
                    Map.of("management.health.redis.enabled", "false")));
            return null;
        }
        if (!env.getProperty(ENABLED_PROPERTY, Boolean.class, true)) {
            return null;
        }
        String host = env.getProperty("spring.data.redis.host", "localhost");
        int port = env.getProperty("spring.data.redis.port", Integer.class, 6379);
        if (StringUtils.hasText(env.getProperty("spring.data.redis.url"))
                || StringUtils.hasText(env.getProperty("spring.data.redis.sentinel.master"))
                || StringUtils.hasText(env.getProperty("spring.data.redis.cluster.nodes"))
                || StringUtils.hasText(env.getProperty("spring.data.redis.cluster.nodes[0]"))
                || StringUtils.hasText(env.getProperty("spring.data.redis.password")) || !isLoopback(host)) {
            log.info("Using the configured Redis; no embedded Redis started");
            return null;
        }
        if (isListening(port)) {
            log.info("Using the Redis already listening on 127.0.0.1:{}", port);
            return null;
        }
        try {
            RedisServerProcess server = RedisServerProcess.start(port);
            // Stopped by this application as the last step of its shutdown (after distlock released its locks),
            // not at once by the JVM's cleanup of embedded servers.
            server.stopAtExitWithin(SHUTDOWN_GRACE);
            log.info("Started an embedded Redis on 127.0.0.1:{} (pid {}). This instance owns it: it stops when this "
                    + "instance stops, also when other local instances still use it.", port, server.pid());
            return server;
        }
        catch (RuntimeException ex) {
            // Another instance starting at the same moment won the port: use its server.
            if (!isListening(port)) {
                throw new IllegalStateException("Could not start an embedded Redis on port " + port
                        + " (set " + ENABLED_PROPERTY + "=false and spring.data.redis.* to use another Redis)", ex);
            }
            log.info("Another instance just started a Redis on 127.0.0.1:{}; using it", port);
            return null;
        }
    }

    @Override
    protected void stop(RedisServerProcess server) {
        log.info("Stopping the embedded Redis on 127.0.0.1:{}", server.port());
        server.stop();
    }
}
