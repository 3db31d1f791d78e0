package dev.distlock.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import javax.sql.DataSource;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import org.apache.curator.test.TestingServer;
import org.h2.tools.Server;

import org.springframework.boot.sql.init.DatabaseInitializationMode;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import dev.distlock.embedded.RedisServerGroup;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.etcd.EtcdLockConfig;
import dev.distlock.etcd.EtcdLockStore;
import dev.distlock.etcd.EtcdTestCluster;
import dev.distlock.jdbc.JdbcLockConfig;
import dev.distlock.jdbc.JdbcLockSchemaInitializer;
import dev.distlock.jdbc.JdbcLockStore;
import dev.distlock.jdbc.PostgresTestServer;
import dev.distlock.redis.MinReplicas;
import dev.distlock.redis.RedisLockConfig;
import dev.distlock.redis.RedisLockStore;
import dev.distlock.redis.RedlockConfig;
import dev.distlock.redis.RedlockStore;
import dev.distlock.spi.LockStore;
import dev.distlock.zookeeper.ZooKeeperLockConfig;
import dev.distlock.zookeeper.ZooKeeperLockStore;

/**
 * Starts the stores of workload S, each the way its tests start it, with the library's default store settings
 * (timeouts, key prefix aside). Ids are those of {@code --stores}.
 */
final class Stores {

    /** Every store id, in report order. */
    static final List<String> ALL = List.of("redis", "redis-replica", "redis-replica-off", "redlock", "h2", "postgres",
            "zookeeper", "etcd", "etcd-3");

    /** The label of the reference store of workload S's ratios. */
    static final String REDIS = "Redis standalone";

    private static final String PREFIX = "bench";

    /** One node's JDBC pool: A's 8 threads plus the watchdog's renewals. */
    private static final int POOL_SIZE = 10;

    private static final Duration REPLICATION_WAIT = Duration.ofSeconds(30);

    private Stores() {
    }

    /**
     * Starts a store.
     *
     * @param id its id
     * @param redis the harness's Redis server, the standalone store
     * @param skipped told, for the report, why a store this machine cannot run is left out
     * @return the started store, or empty when this machine cannot run it (the reason is printed and given to
     *         {@code skipped})
     */
    static Optional<StoreUnderTest> start(String id, RedisTarget redis, Consumer<String> skipped) throws Exception {
        return switch (id) {
            case "redis" -> Optional.of(redisStandalone(redis));
            case "redis-replica" -> Optional.of(redisWithReplica(MinReplicas.AUTO));
            case "redis-replica-off" -> Optional.of(redisWithReplica(MinReplicas.NONE));
            case "redlock" -> Optional.of(redlock(3));
            case "h2" -> Optional.of(h2());
            case "postgres" -> postgres(skipped);
            case "zookeeper" -> Optional.of(zookeeper());
            case "etcd" -> etcd(1, skipped);
            case "etcd-3" -> etcd(3, skipped);
            default -> throw new IllegalArgumentException("--stores: unknown '" + id + "', known: " + ALL);
        };
    }

    private static StoreUnderTest redisStandalone(RedisTarget redis) {
        return new StoreUnderTest("redis", REDIS,
                "the harness's redis-server (or `--redis`), no replica, no persistence",
                resources -> redisNode(redis.host(), redis.port(), RedisLockConfig.defaults().withKeyPrefix(PREFIX),
                        resources),
                List.of());
    }

    /**
     * A master with one replica: with the default {@code distlock.replication.min-replicas=auto} (which waits for
     * that replica) or with acknowledgement off ({@code 0}), the default 1 s timeout.
     */
    private static StoreUnderTest redisWithReplica(MinReplicas minReplicas) {
        RedisServerProcess master = RedisServerProcess.startOnFreePort();
        RedisServerProcess replica;
        try {
            replica = RedisServerProcess.startOnFreePort("--replicaof", master.host(),
                    String.valueOf(master.port()));
            awaitReplica(master, replica);
        }
        catch (RuntimeException ex) {
            master.kill();
            throw ex;
        }
        RedisLockConfig config = RedisLockConfig.defaults().withKeyPrefix(PREFIX)
                .withReplication(minReplicas, RedisLockConfig.defaults().replicationTimeout());
        String id = minReplicas.isOff() ? "redis-replica-off" : "redis-replica";
        String label = minReplicas.isOff() ? "Redis + 1 replica, min-replicas=0"
                : "Redis + 1 replica, min-replicas=" + minReplicas + " (default)";
        return new StoreUnderTest(id, label,
                "two redis-servers (" + redisVersion(master) + "), a master and a `--replicaof` replica; "
                        + "`distlock.replication.min-replicas=" + minReplicas + "`, `distlock.replication.timeout` "
                        + config.replicationTimeout().toMillis() + " ms",
                resources -> redisNode(master.host(), master.port(), config, resources), List.of(replica, master));
    }

    /** Until the master counts the replica and the replica's link is up (the initial sync is done). */
    private static void awaitReplica(RedisServerProcess master, RedisServerProcess replica) {
        long deadline = System.nanoTime() + REPLICATION_WAIT.toNanos();
        while (true) {
            Map<String, String> onMaster = info(master.call("INFO", "replication"));
            Map<String, String> onReplica = info(replica.call("INFO", "replication"));
            if ("1".equals(onMaster.get("connected_slaves")) && "up".equals(onReplica.get("master_link_status"))) {
                return;
            }
            if (System.nanoTime() > deadline) {
                throw new IllegalStateException("The replica did not sync within " + REPLICATION_WAIT + ": master "
                        + onMaster + ", replica " + onReplica);
            }
            sleep(100);
        }
    }

    private static StoreUnderTest redlock(int masters) {
        RedisServerGroup group = RedisServerGroup.start(masters);
        RedlockConfig config = new RedlockConfig(List.of(group.uris().split(",")), PREFIX,
                RedisLockConfig.defaults().commandTimeout());
        return new StoreUnderTest("redlock", "Redlock, " + masters + " masters",
                masters + " independent redis-servers (" + redisVersion(group.server(0)) + "), quorum "
                        + config.quorum() + "; each node asks all masters at once",
                // RedlockStore.connect opens a connection factory per master and closes them with the store.
                resources -> RedlockStore.connect(config), List.of(group));
    }

    /**
     * H2 served over TCP by an H2 server inside the harness's JVM (so the nodes reach it through a socket, as they
     * would a database server), an in-memory database in H2's default mode, one Hikari pool per node.
     */
    private static StoreUnderTest h2() throws SQLException {
        String database = "locks-" + UUID.randomUUID();
        // Keeps the in-memory database open between measurements (it would vanish with its last connection).
        Connection keeper = DriverManager.getConnection("jdbc:h2:mem:" + database + ";DB_CLOSE_DELAY=-1", "sa", "");
        Server server = Server.createTcpServer("-tcpPort", String.valueOf(RedisServerProcess.freePort()), "-ifExists")
                .start();
        String url = "jdbc:h2:tcp://127.0.0.1:" + server.getPort() + "/mem:" + database;
        createTable(url, "sa");
        String version = keeper.getMetaData().getDatabaseProductVersion();
        return new StoreUnderTest("h2", "JDBC, H2 (TCP, in memory)", "H2 " + version + " TCP server in the harness's "
                + "JVM, in-memory database (no disk), default mode; a Hikari pool of " + POOL_SIZE + " per node",
                resources -> jdbcNode(url, "sa", resources), List.of(server::stop, keeper));
    }

    private static Optional<StoreUnderTest> postgres(Consumer<String> skipped) throws Exception {
        // The PostgreSQL server of distlock-jdbc's tests, from the machine's binaries, with durable commits here.
        Optional<PostgresTestServer> started = PostgresTestServer.startNew(true);
        if (started.isEmpty()) {
            return skip(skipped, "JDBC, PostgreSQL", "no PostgreSQL server binaries on this machine (Debian's "
                    + "`postgresql`, or `DISTLOCK_PG_BIN`)");
        }
        PostgresTestServer server = started.get();
        createTable(server.url(), null);
        return Optional.of(new StoreUnderTest("postgres", "JDBC, PostgreSQL " + server.version().replaceAll("\\..*", ""),
                "PostgreSQL " + server.version() + " from " + server.binaries() + ", started by the harness in a "
                        + "temporary directory under " + System.getProperty("java.io.tmpdir") + ", default "
                        + "durability (`fsync` and `synchronous_commit` on); a Hikari pool of " + POOL_SIZE
                        + " per node",
                resources -> jdbcNode(server.url(), null, resources), List.of(server)));
    }

    /** One standalone server in the harness's JVM (Curator's TestingServer), with ZooKeeper's default settings. */
    private static StoreUnderTest zookeeper() throws Exception {
        TestingServer server = new TestingServer(true);
        String forceSync = System.getProperty("zookeeper.forceSync", "yes");
        return new StoreUnderTest("zookeeper", "ZooKeeper (1 server)", "ZooKeeper "
                + org.apache.zookeeper.Version.getFullVersion().replaceAll("[-, ].*", "") + ", one standalone server "
                + "in the harness's JVM (Curator `TestingServer`), data in a temporary directory under "
                + System.getProperty("java.io.tmpdir") + ", `zookeeper.forceSync=" + forceSync + "`"
                + ("no".equals(forceSync) ? "" : " (the transaction log is fsynced before every write is answered)"),
                resources -> ZooKeeperLockStore.connect(ZooKeeperLockConfig.defaults()
                        .withConnectString(server.getConnectString()).withBasePath("/" + PREFIX)),
                List.of(server));
    }

    /**
     * {@code members} etcd processes from the machine's binary, started the way distlock-etcd's tests start them
     * ({@link EtcdTestCluster}: loopback ports, data on {@code /dev/shm}, heartbeat 50 ms, election 500 ms); every
     * node a store with a jetcd client of its own on all members' endpoints.
     */
    private static Optional<StoreUnderTest> etcd(int members, Consumer<String> skipped) {
        String id = members == 1 ? "etcd" : "etcd-" + members;
        String label = "etcd (" + members + (members == 1 ? " member)" : " members)");
        // Checked first: without a binary EtcdTestCluster.start throws JUnit's TestAbortedException (an assumption).
        Optional<Path> binary = EtcdTestCluster.binary();
        if (binary.isEmpty()) {
            return skip(skipped, label, "no etcd binary on this machine (Debian's `etcd-server`, or "
                    + "`DISTLOCK_ETCD_BIN`)");
        }
        EtcdTestCluster cluster = EtcdTestCluster.start(members);
        EtcdLockConfig config = EtcdLockConfig.defaults().withEndpoints(cluster.endpoints()).withKeyPrefix(PREFIX);
        String data = Files.isDirectory(Path.of("/dev/shm")) ? "/dev/shm (tmpfs: its fsyncs cost nothing)"
                : "a temporary directory under " + System.getProperty("java.io.tmpdir") + " (disk)";
        String setup = etcdVersion(binary.get()) + " (" + binary.get() + "), " + (members == 1
                ? "one member, a process of its own"
                : members + " members, processes of their own (one Raft group: a write is answered once a majority "
                        + "has it)")
                + ", on loopback, data on " + data + ", `--heartbeat-interval 50 --election-timeout 500` (as in "
                + "distlock-etcd's tests), other settings etcd's defaults; every node a jetcd "
                + Versions.of("io.etcd", "jetcd-core", io.etcd.jetcd.Client.class) + " client of its own"
                + (members == 1 ? "" : " on all " + members + " endpoints (jetcd's round robin: followers forward "
                        + "writes to the leader)");
        // The store closes the jetcd client it made; the lock service closes the store.
        return Optional.of(new StoreUnderTest(id, label, setup, resources -> EtcdLockStore.connect(config),
                List.of(cluster)));
    }

    // ---------------------------------------------------------------- helpers

    private static Optional<StoreUnderTest> skip(Consumer<String> skipped, String store, String why) {
        System.err.println("  " + store + " SKIPPED: " + why);
        skipped.accept(store + ": " + why);
        return Optional.empty();
    }

    /** @return "etcd 3.4.23", from {@code etcd --version} */
    private static String etcdVersion(Path binary) {
        try {
            Process process = new ProcessBuilder(binary.toString(), "--version").redirectErrorStream(true).start();
            String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            process.waitFor(10, TimeUnit.SECONDS);
            for (String line : output.split("\\R")) {
                if (line.startsWith("etcd Version:")) {
                    return "etcd " + line.substring("etcd Version:".length()).trim();
                }
            }
        }
        catch (IOException ex) {
            // fall through: the version is for the report only
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        return "etcd (version unknown)";
    }

    private static LockStore redisNode(String host, int port, RedisLockConfig config, List<AutoCloseable> resources) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(host, port));
        factory.afterPropertiesSet();
        factory.start();
        resources.add(factory::destroy); // the store does not close the application's connection factory
        return new RedisLockStore(factory, config);
    }

    private static LockStore jdbcNode(String url, String user, List<AutoCloseable> resources) {
        HikariDataSource pool = pool(url, user);
        resources.add(pool);
        return new JdbcLockStore(pool, JdbcLockConfig.defaults());
    }

    private static HikariDataSource pool(String url, String user) {
        HikariConfig config = new HikariConfig();
        config.setJdbcUrl(url);
        if (user != null) {
            config.setUsername(user);
            config.setPassword("");
        }
        config.setMaximumPoolSize(POOL_SIZE);
        config.setMinimumIdle(POOL_SIZE);
        return new HikariDataSource(config);
    }

    /** Creates the lock table the way an application does (the module's script for the database). */
    private static void createTable(String url, String user) {
        try (HikariDataSource pool = pool(url, user)) {
            DataSource dataSource = pool;
            if (!new JdbcLockSchemaInitializer(dataSource, DatabaseInitializationMode.ALWAYS,
                    JdbcLockConfig.defaults()).initializeDatabase()) {
                throw new IllegalStateException("No lock table script ran for " + url);
            }
        }
    }

    private static String redisVersion(RedisServerProcess server) {
        return "Redis " + info(server.call("INFO", "server")).get("redis_version");
    }

    private static Map<String, String> info(Object reply) {
        Map<String, String> fields = new LinkedHashMap<>();
        for (String line : String.valueOf(reply).split("\r?\n")) {
            int colon = line.indexOf(':');
            if (!line.startsWith("#") && colon > 0) {
                fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
            }
        }
        return fields;
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(ex);
        }
    }
}
