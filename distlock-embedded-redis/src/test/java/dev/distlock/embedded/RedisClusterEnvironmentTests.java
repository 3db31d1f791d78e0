package dev.distlock.embedded;

import java.io.IOException;
import java.nio.file.Files;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;
import java.util.stream.IntStream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

/**
 * {@link RedisClusterTopology#start(List)}: each node's process runs with the environment given for its index, also
 * after it was killed and {@link RedisClusterTopology#heal() healed} (the campaign fakes each node's clock that way).
 * The environment is seen through the dynamic loader: each node gets an {@code LD_PRELOAD} naming a library of its
 * own that does not exist, and the loader says so on the server's stderr, which every run appends to its log (the
 * process's {@code /proc/<pid>/environ} is no use: Redis writes its process title over it). Skipped for a statically
 * linked {@code redis-server}, which no loader starts.
 */
class RedisClusterEnvironmentTests {

    private static RedisClusterTopology cluster;

    @BeforeAll
    static void startCluster() throws Exception {
        Process ldd = new ProcessBuilder("ldd", RedisServerBinary.path().toString()).redirectErrorStream(true)
                .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
        Assumptions.assumeTrue(ldd.waitFor(10, TimeUnit.SECONDS) && ldd.exitValue() == 0,
                "RedisClusterEnvironmentTests SKIPPED: " + RedisServerBinary.path() + " is not dynamically linked");
        cluster = RedisClusterTopology.start(IntStream.range(0, 6)
                .mapToObj(i -> Map.of("LD_PRELOAD", library(i))).toList());
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyNodeRunsWithItsOwnEnvironmentAlsoAfterAKillAndHeal() throws IOException {
        // The loader speaks once per program it starts: twice per run where setsid starts the server (OwnSession).
        long perRun = OwnSession.command(List.of()).size() + 1;
        List<RedisServerProcess> nodes = cluster.servers();
        for (int i = 0; i < nodes.size(); i++) {
            for (int other = 0; other < nodes.size(); other++) {
                assertThat(runsWith(nodes.get(i), other)).as("runs of node %d with node %d's environment", i, other)
                        .isEqualTo(other == i ? perRun : 0);
            }
        }
        RedisServerProcess replica = cluster.replicas().get(0);
        int index = nodes.indexOf(replica);
        replica.kill();
        cluster.heal();
        assertThat(runsWith(replica, index)).isEqualTo(2 * perRun);
    }

    @Test
    void wantsOneEnvironmentPerNode() {
        assertThatIllegalArgumentException().isThrownBy(() -> RedisClusterTopology.start(List.of(Map.of())))
                .withMessageContaining("6 nodes, 1 environments");
    }

    private static String library(int node) {
        return "/nonexistent/distlock-cluster-node-" + node + ".so";
    }

    /** How many programs the loader started for the node with node {@code index}'s environment. */
    private static long runsWith(RedisServerProcess node, int index) throws IOException {
        String log = Files.readString(node.workDir().resolve("redis.log"));
        return Pattern.compile(Pattern.quote(library(index)) + "' from LD_PRELOAD cannot be preloaded").matcher(log)
                .results().count();
    }
}
