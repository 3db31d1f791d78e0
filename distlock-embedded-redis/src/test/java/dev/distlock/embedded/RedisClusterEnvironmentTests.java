package dev.distlock.embedded;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
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
 * Read from {@code /proc/<pid>/environ}, so Linux only.
 */
class RedisClusterEnvironmentTests {

    private static final String VARIABLE = "DISTLOCK_TEST_NODE";

    private static RedisClusterTopology cluster;

    @BeforeAll
    static void startCluster() {
        Assumptions.assumeTrue(Files.isReadable(Path.of("/proc/self/environ")),
                "RedisClusterEnvironmentTests SKIPPED: no /proc/<pid>/environ to read a process's environment from");
        cluster = RedisClusterTopology.start(IntStream.range(0, 6).mapToObj(i -> Map.of(VARIABLE, "node-" + i))
                .toList());
    }

    @AfterAll
    static void stopCluster() {
        if (cluster != null) {
            cluster.close();
        }
    }

    @Test
    void everyNodeRunsWithItsOwnEnvironmentAlsoAfterAKillAndHeal() throws IOException {
        List<RedisServerProcess> nodes = cluster.servers();
        for (int i = 0; i < nodes.size(); i++) {
            assertThat(environment(nodes.get(i))).contains(VARIABLE + "=node-" + i);
        }
        RedisServerProcess replica = cluster.replicas().get(0);
        int index = nodes.indexOf(replica);
        long killedPid = replica.pid();
        replica.kill();
        cluster.heal();
        assertThat(replica.pid()).isNotEqualTo(killedPid);
        assertThat(environment(replica)).contains(VARIABLE + "=node-" + index);
    }

    @Test
    void wantsOneEnvironmentPerNode() {
        assertThatIllegalArgumentException().isThrownBy(() -> RedisClusterTopology.start(List.of(Map.of())))
                .withMessageContaining("6 nodes, 1 environments");
    }

    private static List<String> environment(RedisServerProcess node) throws IOException {
        byte[] raw = Files.readAllBytes(Path.of("/proc", String.valueOf(node.pid()), "environ"));
        return Arrays.asList(new String(raw, StandardCharsets.UTF_8).split("\0"));
    }
}
