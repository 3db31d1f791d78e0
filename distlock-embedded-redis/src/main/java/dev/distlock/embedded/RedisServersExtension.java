package dev.distlock.embedded;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.AfterEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * JUnit 5 extension that starts real Redis servers for a test class and stops every one of them afterwards,
 * also when a test fails.
 * <pre>{@code
 * @RegisterExtension
 * static RedisServersExtension redis = new RedisServersExtension();
 *
 * @Test
 * void works() {
 *     RedisServerProcess server = redis.start();
 *     ...
 * }
 * }</pre>
 * Servers started in a static context (e.g. {@code @BeforeAll}) live until the class is done; a server that a
 * test paused is resumed after that test, so one test's failure does not leave the next with a frozen server.
 */
public final class RedisServersExtension implements AfterEachCallback, AfterAllCallback {

    private final List<RedisServerProcess> servers = new CopyOnWriteArrayList<>();

    /**
     * Starts a server on a free loopback port.
     *
     * @param extraArgs further {@code redis-server} arguments
     * @return the running server
     */
    public RedisServerProcess start(String... extraArgs) {
        RedisServerProcess server = RedisServerProcess.startOnFreePort(extraArgs);
        servers.add(server);
        return server;
    }

    /**
     * Starts a server described by a builder, e.g. {@code RedisServerProcess.builder().appendOnly()}, and stops
     * it with the others.
     *
     * @param builder the server's description
     * @return the running server
     */
    public RedisServerProcess start(RedisServerProcess.Builder builder) {
        RedisServerProcess server = builder.start();
        servers.add(server);
        return server;
    }

    /** @return the servers started so far */
    public List<RedisServerProcess> servers() {
        return List.copyOf(servers);
    }

    @Override
    public void afterEach(ExtensionContext context) {
        for (RedisServerProcess server : servers) {
            if (server.isRunning()) {
                server.resume();
            }
        }
    }

    @Override
    public void afterAll(ExtensionContext context) {
        servers.forEach(RedisServerProcess::stop);
        servers.clear();
    }
}
