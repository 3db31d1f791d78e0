package dev.distlock.redis;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import org.springframework.data.redis.listener.RedisMessageListenerContainer;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Closing the release subscription is bounded: the fault campaign hung a service's shutdown in Spring Data Redis's
 * close of the subscription (it joins its connection's close without a timeout, and a connection whose Sentinel
 * master was killed never answered). A container whose close never returns stands for that connection here.
 */
class ReleaseSubscriberCloseTests {

    private final CountDownLatch stuck = new CountDownLatch(1);

    @AfterEach
    void release() {
        stuck.countDown();
    }

    @Test
    @Timeout(10)
    void aSubscriptionThatNeverClosesDoesNotHoldUpTheClose() {
        RedisMessageListenerContainer neverCloses = new RedisMessageListenerContainer() {
            @Override
            public void destroy() throws Exception {
                stuck.await();
            }
        };
        long start = System.nanoTime();
        assertThat(ReleaseSubscriber.destroy(neverCloses, Duration.ofMillis(200))).as("not closed in time").isFalse();
        assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(ReleaseSubscriber.CLOSE_WAIT.multipliedBy(2));
    }

    @Test
    @Timeout(10)
    void aSubscriptionThatClosesIsWaitedFor() {
        CountDownLatch closed = new CountDownLatch(1);
        RedisMessageListenerContainer closes = new RedisMessageListenerContainer() {
            @Override
            public void destroy() {
                closed.countDown();
            }
        };
        assertThat(ReleaseSubscriber.destroy(closes, ReleaseSubscriber.CLOSE_WAIT)).isTrue();
        assertThat(closed.getCount()).isZero();
    }
}
