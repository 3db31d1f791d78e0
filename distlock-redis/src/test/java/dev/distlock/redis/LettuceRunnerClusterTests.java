package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import dev.distlock.embedded.RedisClusterTopology;
import io.lettuce.core.resource.ClientResources;
import io.lettuce.core.resource.DefaultClientResources;
import org.junit.jupiter.api.Test;
import org.springframework.data.redis.connection.RedisClusterConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * On Cluster, a master's connection is made without blocking the thread that asks for it. A release message's
 * hand-over check asks on Lettuce's event loop; a synchronous connect there waited for a connection that needed that
 * same event loop, and a node of CI's cluster-sharded fault campaign hung for good.
 */
class LettuceRunnerClusterTests {

    private static List<String> keysOnEachMaster(RedisClusterTopology cluster) {
        Map<Integer, String> byMaster = new LinkedHashMap<>();
        for (int i = 0; byMaster.size() < cluster.masters().size(); i++) {
            byMaster.putIfAbsent(cluster.masterFor("first-look-up-" + i).port(), "first-look-up-" + i);
        }
        return List.copyOf(byMaster.values());
    }

    @Test
    void aMasterFirstLookedUpOnLettucesEventLoopIsConnectedWithoutBlockingIt() throws Exception {
        // Two event loops (Lettuce's least) on any machine: new connections go to them in turn.
        ClientResources twoEventLoops = DefaultClientResources.builder().ioThreadPoolSize(2).build();
        try (RedisClusterTopology cluster = RedisClusterTopology.start()) {
            RedisClusterConfiguration nodes = new RedisClusterConfiguration(cluster.nodes().stream()
                    .map(node -> node.host() + ":" + node.port()).toList());
            LettuceConnectionFactory factory = new LettuceConnectionFactory(nodes, LettuceClientConfiguration
                    .builder().clientResources(twoEventLoops).build());
            factory.afterPropertiesSet();
            factory.start();
            LettuceRunner runner = new LettuceRunner(factory, Duration.ofSeconds(2), new ReplicaCountLog(), false);
            try {
                // A reply completes on an event loop, which then looks up each master in turn, none used before: of
                // the three new connections, given to the two event loops in turn, one is the calling loop's.
                CompletableFuture<?> lookUps = runner.publish("channel".getBytes(StandardCharsets.UTF_8),
                        "message".getBytes(StandardCharsets.UTF_8));
                List<RedisNode> masters = new CopyOnWriteArrayList<>();
                for (String name : keysOnEachMaster(cluster)) {
                    lookUps = lookUps.thenCompose(previous -> runner.node(name.getBytes(StandardCharsets.UTF_8))
                            .thenAccept(masters::add));
                }
                lookUps.get(10, TimeUnit.SECONDS);
                assertThat(masters).as("the master of each key").hasSize(3).doesNotContainNull();
            }
            finally {
                // Bounded: a blocked event loop never lets the connections close, and the failure is the assertion.
                Thread cleanUp = new Thread(() -> {
                    runner.close();
                    factory.destroy();
                }, "clean-up");
                cleanUp.setDaemon(true);
                cleanUp.start();
                cleanUp.join(10_000);
            }
        }
        finally {
            twoEventLoops.shutdown(0, 2, TimeUnit.SECONDS);
        }
    }
}
