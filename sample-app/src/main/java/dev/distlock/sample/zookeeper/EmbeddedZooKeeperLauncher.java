package dev.distlock.sample.zookeeper;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;

import dev.distlock.sample.EmbeddedServerLauncher;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingServer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.core.env.ConfigurableEnvironment;

/**
 * Starts an in-process ZooKeeper server (Curator's {@code TestingServer}) for the sample when it runs with
 * {@code distlock.store=zookeeper} and no ZooKeeper is there, so the sample needs nothing but a JDK on ZooKeeper as
 * on Redis.
 * <p>
 * Runs when the environment is ready, before any bean exists. It starts a server on the port of
 * {@code distlock.zookeeper.connect-string} only when {@code sample.embedded-zookeeper} is {@code true} (the
 * default), the connect string is one loopback {@code host:port} and nothing listens there yet: the first local
 * instance starts it, later instances join it, and it stops with that first instance. Its data lives in
 * {@code ${sample.data-dir}/zookeeper}, next to the sample's database, so that transaction ids — the fencing tokens
 * the database has seen — keep growing across restarts of the sample. Registered in
 * {@code META-INF/spring.factories}.
 */
public class EmbeddedZooKeeperLauncher extends EmbeddedServerLauncher<TestingServer> {

    /** Property that turns the embedded server off. */
    public static final String ENABLED_PROPERTY = "sample.embedded-zookeeper";

    private static final Logger log = LoggerFactory.getLogger(EmbeddedZooKeeperLauncher.class);

    @Override
    protected TestingServer startIfNeeded(ConfigurableEnvironment env) {
        if (!"zookeeper".equals(lockStore(env)) || !env.getProperty(ENABLED_PROPERTY, Boolean.class, true)
                || !env.getProperty("distlock.enabled", Boolean.class, true)) {
            return null;
        }
        String connect = env.getProperty("distlock.zookeeper.connect-string", "localhost:2181").strip();
        int colon = connect.lastIndexOf(':');
        if (connect.contains(",") || connect.contains("/") || colon < 0 || !isLoopback(connect.substring(0, colon))) {
            log.info("Using the configured ZooKeeper ensemble {}; no embedded ZooKeeper started", connect);
            return null;
        }
        int port = Integer.parseInt(connect.substring(colon + 1));
        if (isListening(port)) {
            log.info("Using the ZooKeeper already listening on 127.0.0.1:{}", port);
            return null;
        }
        File dataDir = new File(env.resolvePlaceholders("${sample.data-dir}"), "zookeeper");
        try {
            // ZooKeeper writes its configuration file next to the data directory: both must exist.
            Files.createDirectories(dataDir.toPath());
            TestingServer server = new TestingServer(new InstanceSpec(dataDir, port, -1, -1, false, -1), true);
            log.info("Started an embedded ZooKeeper on 127.0.0.1:{} (data in {}). This instance owns it: it stops "
                    + "when this instance stops, also when other local instances still use it.", port, dataDir);
            return server;
        }
        catch (Exception ex) {
            // Another instance starting at the same moment won the port: use its server.
            if (!isListening(port)) {
                throw new IllegalStateException("Could not start an embedded ZooKeeper on port " + port + " (set "
                        + ENABLED_PROPERTY + "=false and distlock.zookeeper.connect-string to use another one)", ex);
            }
            log.info("Another instance just started a ZooKeeper on 127.0.0.1:{}; using it", port);
            return null;
        }
    }

    @Override
    protected void stop(TestingServer server) {
        log.info("Stopping the embedded ZooKeeper on 127.0.0.1:{}", server.getPort());
        try {
            server.close();
        }
        catch (IOException ex) {
            log.warn("Could not stop the embedded ZooKeeper cleanly", ex);
        }
    }
}
