package dev.distlock.ha;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import dev.distlock.InvalidPropertyException;
import dev.distlock.LockService;
import dev.distlock.embedded.ClusterSlots;
import dev.distlock.embedded.RedisClusterTopology;
import dev.distlock.embedded.RedisServerBinary;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisTopologies;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.StoreHealth;
import dev.distlock.test.support.LockHistory;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Release notifications by sharded pub/sub ({@code distlock.cluster.sharded-pubsub}) on a real Redis Cluster of
 * three masters with a replica each: a release's message stays in its shard (the cluster bus carries no
 * {@code PUBLISH}, only each master's {@code SPUBLISH} to its replica) and wakes the waiter on another node on every
 * shard, also after a shard failed over. With the default, one channel, every message crosses the bus to all five
 * other nodes: the same hand-overs measured both ways.
 */
class ShardedPubsubTests {

    private static final Logger log = LoggerFactory.getLogger(ShardedPubsubTests.class);

    private static final String SHARDED = "distlock.cluster.sharded-pubsub=true";

    private static final int ROUNDS = 5;

    private static RedisClusterTopology cluster;

    private final LockHistory history = new LockHistory();

    @BeforeAll
    static void startCluster() {
        cluster = RedisTopologies.sharedCluster();
    }

    @AfterEach
    void heal() {
        cluster.heal();
    }

    private ApplicationContextRunner runner(String... properties) {
        return nodes().runner(history, "distlock.wait-time=5s").withPropertyValues(properties);
    }

    private static ClusterNodes nodes() {
        return new ClusterNodes(cluster, "sp");
    }

    @Test
    void aReleaseMessageStaysInItsShardAndWakesTheWaiterOnEveryShard() {
        assumeRedis7();
        runner(SHARDED).run(a -> runner(SHARDED).run(b -> {
            awaitSubscribed(a);
            awaitSubscribed(b);
            BusMessages before = BusMessages.now(cluster.servers());
            handOverOnEveryShard(a.getBean(LockService.class), b.getBean(LockService.class));
            BusMessages sent = BusMessages.now(cluster.servers()).minus(before);
            log.info("Sharded pub/sub, {} hand-overs: cluster bus PUBLISH messages sent {}, SPUBLISH {}",
                    3 * ROUNDS, sent.publish(), sent.publishShard());
            assertThat(sent.publish()).as("PUBLISH messages over the cluster bus").isZero();
            // Each release's message goes from its master to that master's one replica.
            assertThat(sent.publishShard()).isBetween((long) 3 * ROUNDS, (long) 3 * ROUNDS * 2);
        }));
        history.assertConsistent();
    }

    @Test
    void theOneChannelOfTheDefaultCrossesTheBusToEveryNode() {
        assumeRedis7();
        runner().run(a -> runner().run(b -> {
            awaitSubscribed(a);
            awaitSubscribed(b);
            BusMessages before = BusMessages.now(cluster.servers());
            handOverOnEveryShard(a.getBean(LockService.class), b.getBean(LockService.class));
            BusMessages sent = BusMessages.now(cluster.servers()).minus(before);
            log.info("One channel, {} hand-overs: cluster bus PUBLISH messages sent {}, SPUBLISH {}", 3 * ROUNDS,
                    sent.publish(), sent.publishShard());
            // Each release's message goes from the master that ran the script to the five other nodes.
            assertThat(sent.publish()).isGreaterThanOrEqualTo((long) 3 * ROUNDS * 5);
            assertThat(sent.publishShard()).isZero();
        }));
        history.assertConsistent();
    }

    @Test
    void afterAFailoverTheNewMasterIsSubscribedAndWakesTheWaiter() throws Exception {
        assumeRedis7();
        runner(SHARDED).run(a -> runner(SHARDED).run(b -> {
            awaitSubscribed(a);
            awaitSubscribed(b);
            cluster.killMaster(0);
            RedisServerProcess promoted = cluster.awaitFailover(Duration.ofSeconds(30));
            // Both nodes subscribed on the promoted master (a replica had no subscriptions), before the health
            // check, which judges by the client's view of the cluster, may still trust the killed master's.
            await().atMost(Duration.ofSeconds(20)).until(() -> subscribers(promoted) == 2);
            awaitSubscribed(a);
            awaitSubscribed(b);
            long before = spublishCalls(promoted);
            handOverOnEveryShard(a.getBean(LockService.class), b.getBean(LockService.class));
            // Its releases published on its slots' channels (it has no replica yet: nothing crosses the bus).
            assertThat(spublishCalls(promoted) - before).as("SPUBLISH calls on the promoted master")
                    .isGreaterThanOrEqualTo(ROUNDS);
        }));
        history.assertConsistent();
    }

    /**
     * A master drops the nodes' pub/sub connections while it stays master (a network reset does the same). Lettuce
     * reconnects, but its own re-subscribe sends every channel of the connection in one {@code SSUBSCRIBE}, which
     * Redis refuses ({@code CROSSSLOT}): the nodes must subscribe each slot again themselves (fault campaign,
     * cluster-sharded: a node whose notifications stopped lost its place in every queue and was starved).
     */
    @Test
    void aMasterThatDropsTheSubscribersConnectionsIsSubscribedAgainAndWakesTheWaiter() {
        assumeRedis7();
        runner(SHARDED).run(a -> runner(SHARDED).run(b -> {
            awaitSubscribed(a);
            awaitSubscribed(b);
            for (RedisServerProcess master : cluster.masters()) {
                assertThat(master.call("CLIENT", "KILL", "TYPE", "pubsub")).as("pub/sub connections dropped by "
                        + master.port()).isEqualTo(2L);
            }
            for (RedisServerProcess master : cluster.masters()) {
                await("both nodes subscribed on " + master.port() + " again").atMost(Duration.ofSeconds(20))
                        .until(() -> subscribers(master) == 2);
            }
            handOverOnEveryShard(a.getBean(LockService.class), b.getBean(LockService.class));
        }));
        history.assertConsistent();
    }

    @Test
    void shardedPubsubWithoutAClusterIsRefusedNamingTheProperty() {
        HaApplications.node(history).withPropertyValues("spring.data.redis.host=127.0.0.1",
                "spring.data.redis.port=" + cluster.servers().get(0).port(), SHARDED).run(context -> {
                    assertThat(context).hasFailed();
                    assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidPropertyException.class)
                            .hasMessageContaining("distlock.cluster.sharded-pubsub")
                            .hasMessageContaining("Redis Cluster");
                });
    }

    /** The default run's Redis is 6.2 (no sharded pub/sub, no such bus counters); CI runs these on 7.0 and 7.4. */
    private static void assumeRedis7() {
        Assumptions.assumeTrue(RedisServerBinary.isAtLeast(7, 0), () -> "sharded pub/sub needs Redis 7 or later; "
                + "this run's redis-server is " + RedisServerBinary.version()
                + " (DISTLOCK_REDIS_VERSION=7.4 or DISTLOCK_REDIS_SERVER=<a Redis 7 binary> runs it)");
    }

    @Test
    void aSlotMovedToAnotherMasterIsSubscribedThereAndWakesTheWaiter() {
        assumeRedis7();
        RedisServerProcess source = cluster.masters().get(0);
        RedisServerProcess target = cluster.masters().get(1);
        String name = nodes().nameOn(source, "moving");
        int slot = ClusterSlots.slot(nodes().key(name));
        runner(SHARDED).run(a -> runner(SHARDED).run(b -> {
            awaitSubscribed(a);
            awaitSubscribed(b);
            nodes().moveSlot(slot, source, target);
            try {
                // Redis unsubscribed the slot's channel on the source; both nodes subscribe it on the target.
                await().atMost(Duration.ofSeconds(20)).until(() -> subscribers(target, channelOf(slot)) == 2);
                List<Long> millis = nodes().handOffMillis(a.getBean(LockService.class), b.getBean(LockService.class),
                        name, ROUNDS);
                log.info("Hand-off times of '{}' after its slot moved: {} ms", name, millis);
                assertThat(millis.stream().sorted().toList().get(ROUNDS / 2)).as("median of " + millis)
                        .isLessThan(100);
            }
            finally {
                nodes().moveSlot(slot, target, source);
            }
        }));
        history.assertConsistent();
    }

    @Test
    void aUserWithoutTheChannelPatternIsRefusedAtStartNamingTheAclRule() {
        assumeRedis7();
        // The one channel granted, as for the default: the sharded channels are not.
        for (RedisServerProcess server : cluster.servers()) {
            server.call("ACL", "SETUSER", "sp-locker", "on", ">sp-secret", "~sp:*", "resetchannels",
                    "&sp:released", "+@all");
        }
        try {
            runner(SHARDED, "spring.data.redis.username=sp-locker", "spring.data.redis.password=sp-secret")
                    .run(context -> {
                        assertThat(context).hasFailed();
                        assertThat(context.getStartupFailure()).hasStackTraceContaining("NOPERM")
                                .hasStackTraceContaining("grant them with the ACL rule '&sp:released:*'");
                    });
        }
        finally {
            for (RedisServerProcess server : cluster.servers()) {
                server.call("ACL", "DELUSER", "sp-locker");
            }
        }
    }

    @Test
    void shardedPubsubOnARedisOlderThan7IsRefusedAtStartNamingTheProperty() {
        Assumptions.assumeFalse(RedisServerBinary.isAtLeast(7, 0), () -> "this run's redis-server is "
                + RedisServerBinary.version() + ", which has sharded pub/sub");
        runner(SHARDED).run(context -> {
            assertThat(context).hasFailed();
            assertThat(context.getStartupFailure()).rootCause().isInstanceOf(InvalidPropertyException.class)
                    .hasMessageContaining("distlock.cluster.sharded-pubsub").hasMessageContaining("Redis 7");
        });
    }

    private static void awaitSubscribed(AssertableApplicationContext context) {
        LockStore store = context.getBean(LockStore.class);
        await().atMost(Duration.ofSeconds(20)).until(() -> {
            StoreHealth health = store.health().toCompletableFuture().get(5, TimeUnit.SECONDS);
            return "subscribed".equals(health.details().get("releaseNotifications"));
        });
    }

    /**
     * On each shard, {@value #ROUNDS} times: node A holds a name, node B waits for it (queued: the lock's value is
     * flagged), A releases, and B must get it through the release's message well before its fallback re-check.
     */
    private void handOverOnEveryShard(LockService nodeA, LockService nodeB) throws Exception {
        for (RedisServerProcess master : cluster.masters()) {
            String name = nodes().nameOn(master, "shard-" + master.port());
            List<Long> millis = nodes().handOffMillis(nodeA, nodeB, name, ROUNDS);
            log.info("Hand-off times of '{}' on master {}: {} ms", name, master.port(), millis);
            assertThat(millis.stream().sorted().toList().get(ROUNDS / 2)).as("median of " + millis).isLessThan(100);
        }
    }

    /** @return how many times the server ran {@code SPUBLISH} (from scripts too) */
    private static long spublishCalls(RedisServerProcess server) {
        Matcher calls = Pattern.compile("cmdstat_spublish:calls=(\\d+)").matcher(String.valueOf(
                server.call("INFO", "commandstats")));
        return calls.find() ? Long.parseLong(calls.group(1)) : 0;
    }

    /** @return how many clients listen on the first sharded release channel the server has subscribers for */
    private static long subscribers(RedisServerProcess server) {
        List<?> channels = (List<?>) server.call("PUBSUB", "SHARDCHANNELS", "sp:released:*");
        return channels == null || channels.isEmpty() ? 0 : subscribers(server, String.valueOf(channels.get(0)));
    }

    /** @return how many clients listen on the channel on the server */
    private static long subscribers(RedisServerProcess server, String channel) {
        List<?> counts = (List<?>) server.call("PUBSUB", "SHARDNUMSUB", channel);
        return counts == null ? 0 : Long.parseLong(String.valueOf(counts.get(1)));
    }

    /** @return the release channel of a slot: its tag is the smallest number whose text hashes to the slot */
    private static String channelOf(int slot) {
        for (int tag = 0;; tag++) {
            if (ClusterSlots.slot("{" + tag + "}") == slot) {
                return "sp:released:{" + tag + "}";
            }
        }
    }

    /** The pub/sub messages the servers sent over the cluster bus ({@code CLUSTER INFO}), summed. */
    private record BusMessages(long publish, long publishShard) {

        static BusMessages now(List<RedisServerProcess> servers) {
            long publish = 0;
            long shard = 0;
            for (RedisServerProcess server : servers) {
                String info = String.valueOf(server.call("CLUSTER", "INFO"));
                publish += counter(info, "cluster_stats_messages_publish_sent");
                shard += counter(info, "cluster_stats_messages_publishshard_sent");
            }
            return new BusMessages(publish, shard);
        }

        private static long counter(String info, String name) {
            Matcher value = Pattern.compile(name + ":(\\d+)").matcher(info);
            return value.find() ? Long.parseLong(value.group(1)) : 0;
        }

        BusMessages minus(BusMessages earlier) {
            return new BusMessages(publish - earlier.publish, publishShard - earlier.publishShard);
        }
    }
}
