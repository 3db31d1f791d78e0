package dev.distlock.zookeeper;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;

import dev.distlock.embedded.LoopbackPorts;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.RetryOneTime;
import org.apache.curator.test.InstanceSpec;
import org.apache.curator.test.TestingCluster;
import org.apache.curator.test.TestingServer;

/**
 * Real ZooKeeper servers for tests, in this JVM (Curator's {@code curator-test}), with a short tick so that short
 * session timeouts are allowed (ZooKeeper grants 2 to 20 ticks) and session expiry is noticed quickly.
 */
final class ZooKeeperServers {

    /** The server's tick: sessions of 0.6 s to 6 s. */
    static final int TICK_MILLIS = 300;

    /** The session timeout of test nodes. */
    static final Duration SESSION_TIMEOUT = Duration.ofSeconds(3);

    private ZooKeeperServers() {
    }

    static InstanceSpec spec(int serverId) {
        return new InstanceSpec(null, -1, -1, -1, true, serverId, TICK_MILLIS, -1);
    }

    /** @return a started standalone server on a free loopback port */
    static TestingServer server() {
        try {
            return new TestingServer(spec(-1), true);
        }
        catch (Exception ex) {
            throw new IllegalStateException("Could not start a ZooKeeper test server", ex);
        }
    }

    /**
     * @return a started ensemble of that many servers, on distinct ports (Curator's own choice, one port at a time,
     *         can repeat one: {@link LoopbackPorts})
     */
    static TestingCluster cluster(int servers) {
        InstanceSpec[] specs = new InstanceSpec[servers];
        int[] ports = LoopbackPorts.distinct(3 * servers);
        for (int i = 0; i < servers; i++) {
            specs[i] = new InstanceSpec(null, ports[3 * i], ports[3 * i + 1], ports[3 * i + 2], true, i + 1,
                    TICK_MILLIS, -1);
        }
        TestingCluster cluster = new TestingCluster(specs);
        try {
            cluster.start();
        }
        catch (Exception ex) {
            throw new IllegalStateException("Could not start a ZooKeeper test ensemble", ex);
        }
        return cluster;
    }

    /**
     * @param connectString the ensemble
     * @param basePath the lock parent node
     * @return store settings for tests: short session, 2 s command timeout
     */
    static ZooKeeperLockConfig config(String connectString, String basePath) {
        return ZooKeeperLockConfig.defaults().withConnectString(connectString).withBasePath(basePath)
                .withSessionTimeout(SESSION_TIMEOUT);
    }

    /** @return a started client for inspecting and breaking things */
    static CuratorFramework admin(String connectString) {
        CuratorFramework client = CuratorFrameworkFactory.newClient(connectString, 10_000, 5_000,
                new RetryOneTime(100));
        client.start();
        return client;
    }

    /** Deletes every node under a lock's parent, as an operator would. */
    static void deleteLockNodes(CuratorFramework admin, String basePath, String name) {
        String lockPath = LockPaths.lockPath(basePath, name);
        try {
            List<String> children = admin.getChildren().forPath(lockPath);
            for (String child : children) {
                admin.delete().forPath(lockPath + "/" + child);
            }
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /** @return the lock's child nodes */
    static List<String> lockNodes(CuratorFramework admin, String basePath, String name) {
        try {
            return admin.checkExists().forPath(LockPaths.lockPath(basePath, name)) == null ? List.of()
                    : admin.getChildren().forPath(LockPaths.lockPath(basePath, name));
        }
        catch (Exception ex) {
            throw new IllegalStateException(ex);
        }
    }

    /**
     * @param spec a server of an ensemble
     * @return its mode ({@code leader}, {@code follower}, {@code standalone}) from the {@code srvr} command, or
     *         {@code down}
     */
    static String mode(InstanceSpec spec) {
        try (Socket socket = new Socket("127.0.0.1", spec.getPort())) {
            socket.setSoTimeout(2000);
            OutputStream out = socket.getOutputStream();
            out.write("srvr".getBytes(StandardCharsets.US_ASCII));
            out.flush();
            InputStream in = socket.getInputStream();
            String reply = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            for (String line : reply.split("\n")) {
                if (line.startsWith("Mode: ")) {
                    return line.substring(6).trim();
                }
            }
            return "unknown";
        }
        catch (IOException ex) {
            return "down";
        }
    }
}
