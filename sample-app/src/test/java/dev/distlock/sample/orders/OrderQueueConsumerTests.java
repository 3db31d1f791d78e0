package dev.distlock.sample.orders;

import java.time.Duration;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.actuate.DistlockEndpoint;
import dev.distlock.leader.Leadership;
import dev.distlock.leader.LeadershipListener;
import dev.distlock.sample.SampleAppTestSupport;
import org.junit.jupiter.api.Test;

import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.test.context.DynamicPropertyRegistry;
import org.springframework.test.context.DynamicPropertySource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The sample's leader-only job: the instance leads the consumer's group from start-up
 * ({@code distlock.leader.groups}), consumes the queue while it leads, and the endpoint says so; a second
 * candidate of the group waits meanwhile. A group of this test's own: the other sample tests' contexts, cached and
 * running on the same Redis, campaign for the default one.
 */
class OrderQueueConsumerTests extends SampleAppTestSupport {

    @DynamicPropertySource
    static void group(DynamicPropertyRegistry registry) {
        registry.add("sample.order-consumer.group", () -> "order-consumer-test");
        registry.add("sample.order-consumer.interval", () -> "100ms");
    }

    @Autowired
    private OrderQueueConsumer consumer;

    @Autowired
    private DistlockEndpoint endpoint;

    @Autowired
    private LockService locks;

    @Test
    void theLeaderConsumesTheQueueAndAnotherCandidateWaits() {
        await().atMost(Duration.ofSeconds(20)).until(consumer::consuming);
        await().atMost(Duration.ofSeconds(20)).until(() -> consumer.polls() > 0);
        assertThat(endpoint.locks().leaderOf()).contains(consumer.group());
        try (Leadership other = locks.campaign(consumer.group(), new LeadershipListener() {

            @Override
            public void granted(String group, LockHandle lease) {
                throw new AssertionError("a second leader of " + group);
            }

            @Override
            public void revoked(String group) {
            }
        })) {
            assertThat(other.isLeader()).isFalse();
            assertThat(consumer.consuming()).isTrue();
        }
    }
}
