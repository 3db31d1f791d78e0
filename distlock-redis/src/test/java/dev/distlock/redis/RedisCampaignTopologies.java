package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;

import dev.distlock.test.support.campaign.CampaignTopology;
import io.lettuce.core.cluster.ClusterClientOptions;
import io.lettuce.core.cluster.ClusterTopologyRefreshOptions;
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
 * The Redis store's fault campaign topologies: {@code standalone-aof}, {@code sentinel}, {@code cluster},
 * {@code redlock}, and with an opt-in setting on ({@link RedisOptionTopology}): {@code cluster-sharded} (sharded
 * pub/sub, Redis 7+), {@code standalone-aof-batched} and {@code sentinel-batched} (batched scripts). Their node
 * specs:
 * <ul>
 * <li>{@code redis|host:port|minReplicas}</li>
 * <li>{@code sentinel|masterName|host:port,host:port|minReplicas[|port>port,port>port]}: the optional last field maps
 * the ports the Sentinels name onto this node's own proxies (a Lettuce {@link MappingSocketAddressResolver})</li>
 * <li>{@code cluster|host:port,host:port|minReplicas[|port>port,port>port]}: the seed nodes, and the optional last
 * field maps the ports the cluster names (seed nodes, {@code CLUSTER NODES}, {@code MOVED}) onto this node's own
 * proxies</li>
 * <li>{@code redlock|redis://host:port,redis://host:port}</li>
 * <li>{@code sharded+…} and {@code batched+…}: the spec after the prefix, with the setting on</li>
 * </ul>
 * Store settings are those of the campaign: a 1 s command timeout, a 1 s replication timeout; a Cluster client
 * follows the topology as the how-to advises (adaptive refresh, and every 5 s).
 */
public final class RedisCampaignTopologies implements CampaignTopology.Provider {

    @Override
    public List<String> names() {
        return List.of("standalone-aof", "sentinel", "cluster", "redlock", "cluster-sharded", "standalone-aof-batched",
                "sentinel-batched");
    }

    @Override
    public CampaignTopology start(String name) {
        return switch (name) {
            case "standalone-aof" -> new StandaloneAofTopology();
            case "sentinel" -> new SentinelTopology();
            case "cluster" -> new ClusterTopology();
            case "redlock" -> new RedlockTopology();
            case "cluster-sharded" -> RedisOptionTopology.clusterSharded();
            case "standalone-aof-batched" -> RedisOptionTopology.batched(new StandaloneAofTopology());
            case "sentinel-batched" -> RedisOptionTopology.batched(new SentinelTopology());
            default -> throw new IllegalArgumentException("Not a Redis campaign topology: " + name);
        };
    }

    @Override
    public Optional<CampaignTopology.Opened> open(String spec) {
        UnaryOperator<RedisLockConfig> setting = UnaryOperator.identity();
        for (RedisOptionTopology.Option option : RedisOptionTopology.Option.values()) {
            if (spec.startsWith(option.prefix())) {
                setting = option.setting;
                spec = spec.substring(option.prefix().length());
            }
        }
        String[] parts = spec.split("\\|");
        switch (parts[0]) {
            case "redis": {
                String[] hostPort = parts[1].split(":");
                return Optional.of(redis(new RedisStandaloneConfiguration(hostPort[0], Integer.parseInt(hostPort[1])),
                        Integer.parseInt(parts[2]), parts.length > 3 ? parts[3] : "", setting));
            }
            case "sentinel": {
                RedisSentinelConfiguration sentinel = new RedisSentinelConfiguration();
                sentinel.master(parts[1]);
                for (String node : parts[2].split(",")) {
                    sentinel.addSentinel(RedisNode.fromString(node));
                }
                return Optional.of(redis(sentinel, Integer.parseInt(parts[3]), parts.length > 4 ? parts[4] : "",
                        setting));
            }
            case "cluster":
                return Optional.of(redis(new RedisClusterConfiguration(Arrays.asList(parts[1].split(","))),
                        Integer.parseInt(parts[2]), parts.length > 3 ? parts[3] : "", setting));
            case "redlock":
                return Optional.of(new CampaignTopology.Opened(RedlockStore.connect(new RedlockConfig(
                        List.of(parts[1].split(",")), CampaignTopology.KEY_PREFIX, CampaignTopology.COMMAND_TIMEOUT)),
                        List.of()));
            default:
                return Optional.empty();
        }
    }

    private static CampaignTopology.Opened redis(RedisConfiguration configuration, int minReplicas, String portMapping,
            UnaryOperator<RedisLockConfig> setting) {
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
        if (configuration instanceof RedisClusterConfiguration) {
            // As docs/how-to/sentinel-cluster-redlock.md advises (adaptive: true, period: 5s): without it a client
            // whose shard master stays dead keeps asking it, and finds the promoted replica only by a MOVED.
            builder.clientOptions(ClusterClientOptions.builder().topologyRefreshOptions(ClusterTopologyRefreshOptions
                    .builder().enableAllAdaptiveRefreshTriggers().enablePeriodicRefresh(Duration.ofSeconds(5)).build())
                    .build());
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
        RedisLockConfig config = setting.apply(RedisLockConfig.defaults().withKeyPrefix(CampaignTopology.KEY_PREFIX)
                .withCommandTimeout(CampaignTopology.COMMAND_TIMEOUT).withReplication(minReplicas, Duration.ofSeconds(1)));
        return new CampaignTopology.Opened(new RedisLockStore(factory, config), resources);
    }
}
