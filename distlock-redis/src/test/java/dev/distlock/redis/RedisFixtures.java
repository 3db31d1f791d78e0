package dev.distlock.redis;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import dev.distlock.embedded.RedisServerGroup;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.spi.LockStore;
import dev.distlock.test.support.StoreFixture;
import org.awaitility.Awaitility;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * The Redis store's fixtures, on redis-server processes of {@code distlock-embedded-redis}: {@code redis} (one server,
 * no replica, no persistence), {@code jedis} (the same through Jedis, for the contract), {@code redis-batched} (with
 * batched scripts, for the contract only when named), {@code redis-replica} and {@code redis-replica-off} (a master and
 * a {@code --replicaof} replica, with {@code distlock.replication.min-replicas=auto}, the default, which waits for that
 * replica, or {@code 0}), and {@code redlock} (three independent masters, a quorum store over them). Every node but
 * Jedis's has a Lettuce connection factory of its own.
 */
public final class RedisFixtures implements StoreFixture.Provider {

    /** The key prefix of the fixtures' stores. */
    static final String KEY_PREFIX = "fixture";

    private static final Duration REPLICATION_WAIT = Duration.ofSeconds(30);

    @Override
    public List<String> ids() {
        return List.of("redis", "redis-replica", "redis-replica-off", "redlock");
    }

    /** The contract runs on one server with Lettuce and on Redlock; the replica set-ups add nothing to it. */
    @Override
    public List<String> contractIds() {
        return List.of("redis", "redlock");
    }

    /**
     * One server with batched scripts, and one with Jedis (any Spring Data Redis client works through the generic
     * connection API, each call on a thread and a pooled connection of its own): a pass of CI's runs the contract
     * on them, not every build.
     */
    @Override
    public List<String> namedContractIds() {
        return List.of("redis-batched", "jedis");
    }

    @Override
    public StoreFixture.Availability start(String id) {
        return new StoreFixture.Availability.Ready(switch (id) {
            case "redis" -> standalone(RedisLockConfig.defaults(), "redis", "Redis standalone", "");
            case "redis-batched" -> standalone(RedisLockConfig.defaults().withBatchedScripts(), "redis-batched",
                    "Redis standalone, batched scripts", "; `distlock.redis.batched-scripts=true`");
            case "jedis" -> jedis();
            case "redis-replica" -> withReplica(MinReplicas.AUTO);
            case "redis-replica-off" -> withReplica(MinReplicas.NONE);
            default -> redlock(3);
        });
    }

    private static StoreFixture standalone(RedisLockConfig config, String id, String label, String settings) {
        RedisServerProcess server = RedisServerProcess.startOnFreePort();
        return new Fixture(id, label, "one redis-server (" + version(server) + "), no replica, no persistence"
                + settings, List.of(server), resources -> node(server, config.withKeyPrefix(KEY_PREFIX), resources),
                server::close);
    }

    /** One server, every node on a Jedis connection factory of its own ({@link JedisNodes}). */
    private static StoreFixture jedis() {
        RedisServerProcess server = RedisServerProcess.startOnFreePort();
        return new Fixture("jedis", "Redis standalone, Jedis", "one redis-server (" + version(server) + "), no "
                + "replica, no persistence; Jedis clients", List.of(server), resources -> JedisNodes.node(server,
                        RedisLockConfig.defaults().withKeyPrefix(KEY_PREFIX), resources), server::close);
    }

    /** A master with one replica, the default 1 s replication timeout. */
    private static StoreFixture withReplica(MinReplicas minReplicas) {
        RedisServerProcess master = RedisServerProcess.startOnFreePort();
        RedisServerProcess replica;
        try {
            replica = RedisServerProcess.startOnFreePort("--replicaof", master.host(), String.valueOf(master.port()));
            // Until the master counts the replica and the replica's link is up (the initial sync is done).
            Awaitility.await("the replica's initial sync").atMost(REPLICATION_WAIT).until(() ->
                    "1".equals(info(master.call("INFO", "replication")).get("connected_slaves"))
                            && "up".equals(info(replica.call("INFO", "replication")).get("master_link_status")));
        }
        catch (RuntimeException ex) {
            master.kill();
            throw ex;
        }
        RedisLockConfig config = RedisLockConfig.defaults().withKeyPrefix(KEY_PREFIX)
                .withReplication(minReplicas, RedisLockConfig.defaults().replicationTimeout());
        String id = minReplicas.isOff() ? "redis-replica-off" : "redis-replica";
        String label = minReplicas.isOff() ? "Redis + 1 replica, min-replicas=0"
                : "Redis + 1 replica, min-replicas=" + minReplicas + " (default)";
        return new Fixture(id, label, "two redis-servers (" + version(master) + "), a master and a `--replicaof` "
                + "replica; `distlock.replication.min-replicas=" + minReplicas + "`, `distlock.replication.timeout` "
                + config.replicationTimeout().toMillis() + " ms", List.of(master, replica),
                resources -> node(master, config, resources), () -> {
                    replica.close();
                    master.close();
                });
    }

    private static StoreFixture redlock(int masters) {
        RedisServerGroup group = RedisServerGroup.start(masters);
        RedlockConfig config = new RedlockConfig(List.of(group.uris().split(",")), KEY_PREFIX,
                RedisLockConfig.defaults().commandTimeout());
        // RedlockStore.connect opens a connection factory per master and closes them with the store.
        return new Fixture("redlock", "Redlock, " + masters + " masters", masters + " independent redis-servers ("
                + version(group.server(0)) + "), quorum " + config.quorum() + "; each node asks all masters at once",
                group.servers(), resources -> RedlockStore.connect(config), group::close);
    }

    private static LockStore node(RedisServerProcess server, RedisLockConfig config, List<AutoCloseable> resources) {
        LettuceConnectionFactory factory = new LettuceConnectionFactory(
                new RedisStandaloneConfiguration(server.host(), server.port()));
        factory.afterPropertiesSet();
        factory.start();
        resources.add(factory::destroy); // the store does not close the application's connection factory
        return new RedisLockStore(factory, config);
    }

    private static String version(RedisServerProcess server) {
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

    /** Makes a node's store, adding what the node must close after it. */
    private interface Nodes {

        LockStore make(List<AutoCloseable> resources);
    }

    private record Fixture(String id, String label, String setup, List<RedisServerProcess> servers, Nodes nodes,
            Runnable stopAll) implements StoreFixture {

        @Override
        public LockStore newStore(List<AutoCloseable> resources) {
            return nodes.make(resources);
        }

        @Override
        public void stopServer() {
            servers.forEach(RedisServerProcess::kill);
        }

        @Override
        public void startServer() {
            servers.forEach(RedisServerProcess::start);
        }

        @Override
        public void breakLease(String name) {
            for (RedisServerProcess server : servers) {
                if (!"slave".equals(info(server.call("INFO", "replication")).get("role"))) {
                    server.call("DEL", KEY_PREFIX + ":{" + name + "}");
                }
            }
        }

        /** The waiter list; Redlock's nodes keep none (nobody queues on a quorum's node). */
        @Override
        public boolean countsWaiters() {
            return !"redlock".equals(id);
        }

        /** Redlock tells the highest token of its majority (QuorumDescription). */
        @Override
        public boolean describesExactTokens() {
            return !"redlock".equals(id);
        }

        @Override
        public Optional<HolderCommand> holder() {
            return id.equals("redis") || id.equals("redis-batched") ? Optional.of(new HolderCommand(HolderProcess.class,
                    List.of(String.valueOf(servers.get(0).port()), KEY_PREFIX, id.equals("redis-batched") ? "batched"
                            : "plain"))) : Optional.empty();
        }

        @Override
        public void close() {
            stopAll.run();
        }
    }
}
