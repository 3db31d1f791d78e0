package dev.distlock.campaign;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import com.zaxxer.hikari.HikariConfig;
import com.zaxxer.hikari.HikariDataSource;
import dev.distlock.etcd.EtcdLockConfig;
import dev.distlock.etcd.EtcdLockStore;
import dev.distlock.redis.RedisLockConfig;
import dev.distlock.redis.RedisLockStore;
import dev.distlock.redis.RedlockConfig;
import dev.distlock.redis.RedlockStore;
import dev.distlock.jdbc.JdbcLockConfig;
import dev.distlock.jdbc.JdbcLockStore;
import dev.distlock.spi.LockStore;
import dev.distlock.zookeeper.ZooKeeperLockConfig;
import dev.distlock.zookeeper.ZooKeeperLockStore;
import io.lettuce.core.internal.HostAndPort;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DnsResolvers;
import io.lettuce.core.resource.MappingSocketAddressResolver;

import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.RedisConfiguration;
import org.springframework.data.redis.connection.RedisNode;
import org.springframework.data.redis.connection.RedisSentinelConfiguration;
import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Opens a lock store from a one-line description, so that a node in the test JVM and a node in a child JVM
 * ({@link CampaignNodeMain}) connect the same way. The fields are separated by {@code |}:
 * <ul>
 * <li>{@code redis|host:port|minReplicas}</li>
 * <li>{@code sentinel|masterName|host:port,host:port|minReplicas[|port>port,port>port]}: the optional last field maps
 * the ports the Sentinels name onto this node's own proxies (a Lettuce {@link MappingSocketAddressResolver})</li>
 * <li>{@code cluster|host:port,host:port|minReplicas}</li>
 * <li>{@code redlock|redis://host:port,redis://host:port}</li>
 * <li>{@code jdbc|url|table}</li>
 * <li>{@code zookeeper|connectString|basePath}</li>
 * <li>{@code etcd|http://host:port,http://host:port}</li>
 * </ul>
 * Store settings are those of the campaign: a 1 s command timeout, a 1 s replication timeout, a 4 s ZooKeeper
 * session.
 */
final class StoreSpecs {

    static final Duration COMMAND_TIMEOUT = Duration.ofSeconds(1);

    static final String KEY_PREFIX = "campaign";

    private StoreSpecs() {
    }

    /**
     * A store and what it holds open.
     *
     * @param store the store
     * @param resources closed after the store (connection factories, pools)
     */
    record Opened(LockStore store, List<AutoCloseable> resources) {

        void closeResources() {
            for (AutoCloseable resource : resources) {
                try {
                    resource.close();
                }
                catch (Exception ex) {
                    // Closing at the end of a run: nothing to do about it.
                }
            }
        }
    }

    /**
     * @param spec the description
     * @return the store, not started
     * @throws IllegalArgumentException naming the spec when it is not one of the forms above
     */
    static Opened open(String spec) {
        String[] parts = spec.split("\\|");
        switch (parts[0]) {
            case "redis": {
                String[] hostPort = parts[1].split(":");
                return redis(new RedisStandaloneConfiguration(hostPort[0], Integer.parseInt(hostPort[1])),
                        Integer.parseInt(parts[2]), "");
            }
            case "sentinel": {
                RedisSentinelConfiguration sentinel = new RedisSentinelConfiguration();
                sentinel.master(parts[1]);
                for (String node : parts[2].split(",")) {
                    sentinel.addSentinel(RedisNode.fromString(node));
                }
                return redis(sentinel, Integer.parseInt(parts[3]), parts.length > 4 ? parts[4] : "");
            }
            case "cluster":
                return redis(new RedisClusterConfiguration(Arrays.asList(parts[1].split(","))),
                        Integer.parseInt(parts[2]), "");
            case "redlock":
                return new Opened(RedlockStore.connect(new RedlockConfig(List.of(parts[1].split(",")), KEY_PREFIX,
                        COMMAND_TIMEOUT)), List.of());
            case "jdbc": {
                HikariConfig config = new HikariConfig();
                config.setJdbcUrl(parts[1]);
                config.setMaximumPoolSize(4);
                config.setMinimumIdle(0);
                config.setInitializationFailTimeout(-1);
                config.setConnectionTimeout(TimeUnit.SECONDS.toMillis(2));
                HikariDataSource pool = new HikariDataSource(config);
                return new Opened(new JdbcLockStore(pool, JdbcLockConfig.defaults().withTableName(parts[2])
                        .withCommandTimeout(COMMAND_TIMEOUT)), List.of(pool));
            }
            case "zookeeper": {
                ZooKeeperLockStore store = ZooKeeperLockStore.connect(ZooKeeperLockConfig.defaults()
                        .withConnectString(parts[1]).withBasePath(parts[2]).withSessionTimeout(Duration.ofSeconds(4))
                        .withCommandTimeout(COMMAND_TIMEOUT));
                return new Opened(store, List.of());
            }
            case "etcd":
                return new Opened(EtcdLockStore.connect(EtcdLockConfig.defaults()
                        .withEndpoints(List.of(parts[1].split(","))).withKeyPrefix(KEY_PREFIX)
                        .withCommandTimeout(COMMAND_TIMEOUT)), List.of());
            default:
                throw new IllegalArgumentException("Unknown store spec '" + spec + "': expected redis|, sentinel|, "
                        + "cluster|, redlock|, jdbc|, zookeeper| or etcd|");
        }
    }

    private static Opened redis(RedisConfiguration configuration, int minReplicas, String portMapping) {
        List<AutoCloseable> resources = new ArrayList<>();
        LettuceClientConfiguration.LettuceClientConfigurationBuilder builder = LettuceClientConfiguration.builder()
                .commandTimeout(Duration.ofSeconds(5));
        if (!portMapping.isEmpty()) {
            Map<Integer, Integer> ports = new HashMap<>();
            for (String pair : portMapping.split(",")) {
                String[] fromTo = pair.split(">");
                ports.put(Integer.parseInt(fromTo[0]), Integer.parseInt(fromTo[1]));
            }
            ClientResources clientResources = ClientResources.builder().socketAddressResolver(
                    MappingSocketAddressResolver.create(DnsResolvers.UNRESOLVED, address -> ports.containsKey(
                            address.getPort()) ? HostAndPort.of(address.getHostText(), ports.get(address.getPort()))
                                    : address))
                    .build();
            builder.clientResources(clientResources);
            resources.add(clientResources::shutdown);
        }
        LettuceClientConfiguration client = builder.build();
        LettuceConnectionFactory factory = configuration instanceof RedisStandaloneConfiguration standalone
                ? new LettuceConnectionFactory(standalone, client)
                : configuration instanceof RedisSentinelConfiguration sentinel
                        ? new LettuceConnectionFactory(sentinel, client)
                        : new LettuceConnectionFactory((RedisClusterConfiguration) configuration, client);
        factory.afterPropertiesSet();
        factory.start();
        resources.add(0, factory::destroy);
        RedisLockConfig config = RedisLockConfig.defaults().withKeyPrefix(KEY_PREFIX)
                .withCommandTimeout(COMMAND_TIMEOUT).withReplication(minReplicas, Duration.ofSeconds(1));
        return new Opened(new RedisLockStore(factory, config), resources);
    }
}
