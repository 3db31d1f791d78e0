package dev.distlock.integration;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.integration.autoconfigure.DistlockIntegrationAutoConfiguration;
import dev.distlock.redis.autoconfigure.DistlockRedisAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.assertj.AssertableApplicationContext;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.env.Environment;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.integration.leader.Context;
import org.springframework.integration.leader.DefaultCandidate;
import org.springframework.integration.support.leader.LockRegistryLeaderInitiator;
import org.springframework.integration.support.locks.LockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Spring Integration's own {@link LockRegistryLeaderInitiator} on {@link DistlockLockRegistry}, in two application
 * contexts (two instances) on one real Redis: one of them leads; the other leads when the leader stops; and a leader
 * whose lease is lost is revoked while the other takes over, and can lead again later.
 */
class LeaderInitiatorTests {

    private static final String ROLE = "orders-consumer";

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private final History history = new History();

    private ApplicationContextRunner instance(RedisServerProcess redis, String id) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
                        DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class,
                        DistlockIntegrationAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port(),
                        "distlock.lease-time=3s", "instance=" + id)
                .withBean(History.class, () -> history)
                .withUserConfiguration(Leadership.class);
    }

    @Test
    void oneInstanceLeadsAndTheOtherLeadsWhenTheLeaderStops() {
        RedisServerProcess redis = redisServers.start();
        instance(redis, "a").run(a -> instance(redis, "b").run(b -> {
            await().atMost(Duration.ofSeconds(10)).until(() -> !history.granted().isEmpty());
            String leader = history.granted().get(0);
            // For several heartbeats the leader leads alone: each heartbeat takes the lock again, reentrantly.
            await().during(Duration.ofMillis(800)).atMost(Duration.ofSeconds(2))
                    .until(() -> history.events.equals(List.of("granted:" + leader)));

            String follower = leader.equals("a") ? "b" : "a";
            (leader.equals("a") ? a : b).close();
            await().atMost(Duration.ofSeconds(10)).until(() -> history.granted().contains(follower));
            assertThat(history.events).containsExactlyInAnyOrder("granted:" + leader, "revoked:" + leader,
                    "granted:" + follower);
        }));
    }

    @Test
    void aLeaderWhoseLeaseIsLostIsRevokedAndTheOtherLeads() {
        RedisServerProcess redis = redisServers.start();
        instance(redis, "a").run(a -> instance(redis, "b").run(b -> {
            await().atMost(Duration.ofSeconds(10)).until(() -> !history.granted().isEmpty());
            String leader = history.granted().get(0);
            String follower = leader.equals("a") ? "b" : "a";

            // The lease ends behind the leader's back (as when its instance stalled past the lease).
            assertThat(a.getBean(StringRedisTemplate.class).delete("distlock:{" + ROLE + "}")).isTrue();

            await().atMost(Duration.ofSeconds(10)).until(() -> history.events.contains("revoked:" + leader));
            await().atMost(Duration.ofSeconds(10)).until(() -> history.granted().contains(follower));
            assertThat(history.events).containsExactlyInAnyOrder("granted:" + leader, "granted:" + follower,
                    "revoked:" + leader);

            // The old leader leads again once the follower stops, and releases the lock when it stops in turn:
            // the holds of its lost lease do not linger (they would keep the lock renewed for ever).
            AssertableApplicationContext old = leader.equals("a") ? a : b;
            (leader.equals("a") ? b : a).close();
            await().atMost(Duration.ofSeconds(10))
                    .until(() -> history.granted().stream().filter(leader::equals).count() == 2);
            StringRedisTemplate keys = old.getBean(StringRedisTemplate.class);
            old.getBean(LockRegistryLeaderInitiator.class).stop();
            await().atMost(Duration.ofSeconds(5)).until(() -> !keys.hasKey("distlock:{" + ROLE + "}"));
        }));
    }

    /** The leader initiator of an instance, as an application declares it: started and stopped with its context. */
    @Configuration(proxyBeanMethods = false)
    static class Leadership {

        @Bean
        LockRegistryLeaderInitiator leaderInitiator(LockRegistry<?> locks, Environment environment,
                History history) {
            String id = environment.getRequiredProperty("instance");
            LockRegistryLeaderInitiator initiator = new LockRegistryLeaderInitiator(locks,
                    new DefaultCandidate(id, ROLE) {

                        @Override
                        public void onGranted(Context context) {
                            history.events.add("granted:" + id);
                        }

                        @Override
                        public void onRevoked(Context context) {
                            history.events.add("revoked:" + id);
                        }
                    });
            initiator.setHeartBeatMillis(200);
            initiator.setBusyWaitMillis(50);
            return initiator;
        }
    }

    /** Every grant and revocation of both instances, in the order they were told. */
    static final class History {

        final List<String> events = new CopyOnWriteArrayList<>();

        List<String> granted() {
            return events.stream().filter(event -> event.startsWith("granted:"))
                    .map(event -> event.substring("granted:".length())).toList();
        }
    }
}
