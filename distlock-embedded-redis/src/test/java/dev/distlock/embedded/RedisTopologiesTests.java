package dev.distlock.embedded;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Shared topologies are started once per JVM and handed out healed, even when the previous user killed a master
 * and did not wait for anything (a test that failed half-way).
 */
class RedisTopologiesTests {

    @Test
    void sharedSentinelIsTheSameInstanceAndHealedOnReuse() {
        RedisSentinelTopology sentinel = RedisTopologies.sharedSentinel();
        RedisServerProcess killed = sentinel.killMaster();
        sentinel.close(); // ignored by a shared topology

        assertThat(RedisTopologies.sharedSentinel()).isSameAs(sentinel);
        assertThat(killed.isRunning()).isTrue();
        RedisServerProcess master = sentinel.master();
        assertThat(((List<?>) master.call("ROLE")).get(0)).isEqualTo("master");
        assertThat(sentinel.replicas()).hasSize(2)
                .allSatisfy(replica -> assertThat(((List<?>) replica.call("ROLE")).get(0)).isEqualTo("slave"));
        assertThat(master.call("SET", "after-heal", "1")).isEqualTo("OK");
    }

    @Test
    void sharedClusterIsTheSameInstanceAndHealedOnReuse() {
        RedisClusterTopology cluster = RedisTopologies.sharedCluster();
        RedisServerProcess killed = cluster.killMaster(2);
        cluster.close(); // ignored by a shared topology

        assertThat(RedisTopologies.sharedCluster()).isSameAs(cluster);
        assertThat(killed.isRunning()).isTrue();
        assertThat(cluster.masters()).hasSize(3);
        assertThat(cluster.replicas()).hasSize(3);
        for (RedisServerProcess node : cluster.servers()) {
            Map<String, String> info = Replies.info(node.call("CLUSTER", "INFO"));
            assertThat(info).containsEntry("cluster_state", "ok").containsEntry("cluster_slots_ok", "16384");
        }
    }
}
