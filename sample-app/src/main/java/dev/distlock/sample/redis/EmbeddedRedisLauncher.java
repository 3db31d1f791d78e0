package dev.distlock.sample.redis;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Map;

import dev.distlock.embedded.RedisServerProcess;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.context.event.ApplicationEnvironmentPreparedEvent;
import org.springframework.boot.context.event.ApplicationFailedEvent;
import org.springframework.context.ApplicationContext;
import org.springframework.context.ApplicationEvent;
import org.springframework.context.event.ContextClosedEvent;
import org.springframework.context.event.SmartApplicationListener;
import org.springframework.core.Ordered;
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
public class EmbeddedRedisLauncher implements SmartApplicationListener, Ordered {

    /** Property that turns the embedded server off. */
    public static final String ENABLED_PROPERTY = "sample.embedded-redis";

    private static final Logger log = LoggerFactory.getLogger(EmbeddedRedisLauncher.class);

    private volatile RedisServerProcess server;

    @Override
    public boolean supportsEventType(Class<? extends ApplicationEvent> eventType) {
        return ApplicationEnvironmentPreparedEvent.class.isAssignableFrom(eventType)
                || ContextClosedEvent.class.isAssignableFrom(eventType)
                || ApplicationFailedEvent.class.isAssignableFrom(eventType);
    }

    @Override
    public void onApplicationEvent(ApplicationEvent event) {
        if (event instanceof ApplicationEnvironmentPreparedEvent prepared) {
            startIfNeeded(prepared.getEnvironment());
        }
        else if (event instanceof ContextClosedEvent closed && isRoot(closed.getApplicationContext())) {
            stop();
        }
        else if (event instanceof ApplicationFailedEvent) {
            stop();
        }
    }

    /** After the config data (application.properties, profiles) has been loaded into the environment. */
    @Override
    public int getOrder() {
        return Ordered.LOWEST_PRECEDENCE;
    }

    /** @return the server this instance started, or null when it uses another one */
    RedisServerProcess server() {
        return server;
    }

    private void startIfNeeded(ConfigurableEnvironment env) {
        if (!"redis".equalsIgnoreCase(env.getProperty("distlock.store", "redis").strip())) {
            log.info("Lock store {}: no embedded Redis started", env.getProperty("distlock.store"));
            env.getPropertySources().addFirst(new MapPropertySource("sample-without-redis",
                    Map.of("management.health.redis.enabled", "false")));
            return;
        }
        if (!env.getProperty(ENABLED_PROPERTY, Boolean.class, true)) {
            return;
        }
        String host = env.getProperty("spring.data.redis.host", "localhost");
        int port = env.getProperty("spring.data.redis.port", Integer.class, 6379);
        if (StringUtils.hasText(env.getProperty("spring.data.redis.url"))
                || StringUtils.hasText(env.getProperty("spring.data.redis.sentinel.master"))
                || StringUtils.hasText(env.getProperty("spring.data.redis.cluster.nodes"))
                || StringUtils.hasText(env.getProperty("spring.data.redis.cluster.nodes[0]"))
                || StringUtils.hasText(env.getProperty("spring.data.redis.password")) || !isLoopback(host)) {
            log.info("Using the configured Redis; no embedded Redis started");
            return;
        }
        if (RedisServerProcess.isListening(port)) {
            log.info("Using the Redis already listening on 127.0.0.1:{}", port);
            return;
        }
        try {
            server = RedisServerProcess.start(port);
            log.info("Started an embedded Redis on 127.0.0.1:{} (pid {}). This instance owns it: it stops when this "
                    + "instance stops, also when other local instances still use it.", port, server.pid());
        }
        catch (RuntimeException ex) {
            // Another instance starting at the same moment won the port: use its server.
            if (!RedisServerProcess.isListening(port)) {
                throw new IllegalStateException("Could not start an embedded Redis on port " + port
                        + " (set " + ENABLED_PROPERTY + "=false and spring.data.redis.* to use another Redis)", ex);
            }
            log.info("Another instance just started a Redis on 127.0.0.1:{}; using it", port);
        }
    }

    private void stop() {
        RedisServerProcess running = server;
        if (running != null) {
            server = null;
            log.info("Stopping the embedded Redis on 127.0.0.1:{}", running.port());
            running.stop();
        }
    }

    private static boolean isRoot(ApplicationContext context) {
        // The actuator's child context (separate management port) closes too; only the application's own counts.
        return context.getParent() == null;
    }

    private static boolean isLoopback(String host) {
        try {
            return "localhost".equalsIgnoreCase(host) || InetAddress.getByName(host).isLoopbackAddress();
        }
        catch (UnknownHostException ex) {
            return false;
        }
    }
}
