package dev.distlock.autoconfigure;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.annotation.DistributedLock;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.redis.autoconfigure.DistlockRedisAutoConfiguration;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Graceful shutdown in a Spring context: closing it lets locked work finish (within the shutdown-phase timeout)
 * before the locks are released, then releases what is left, with the Redis connection still open.
 */
class DistlockShutdownTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
                        DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class,
                        DistlockAnnotationAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + server.host(),
                        "spring.data.redis.port=" + server.port(), "distlock.key-prefix=shutdown")
                .withBean(SlowJob.class);
    }

    private static boolean isFree(LockService other, String name) {
        Optional<LockHandle> handle = other.tryLock(name, LockOptions.defaults().withWaitTime(Duration.ZERO));
        handle.ifPresent(LockHandle::unlock);
        return handle.isPresent();
    }

    @Test
    void closingTheContextWaitsForLockedWorkBeforeReleasing() throws Exception {
        runner().run(other -> runner().run(context -> {
            LockService otherNode = other.getBean(LockService.class);
            SlowJob job = context.getBean(SlowJob.class);
            CountDownLatch started = new CountDownLatch(1);
            CountDownLatch finish = new CountDownLatch(1);
            Thread work = new Thread(() -> job.run(started, finish));
            work.start();
            started.await();
            Thread closer = new Thread(context::close);
            closer.start();
            // The context keeps closing, and the lock stays with the running work, for as long as it runs.
            await().during(Duration.ofMillis(500)).atMost(Duration.ofSeconds(2))
                    .until(() -> closer.isAlive() && !isFree(otherNode, "slow"));
            finish.countDown();
            work.join(10_000);
            closer.join(10_000);
            assertThat(closer.isAlive()).isFalse();
            assertThat(job.completed()).as("the work was not cut short").isTrue();
            assertThat(isFree(otherNode, "slow")).isTrue();
        }));
    }

    @Test
    void workThatOutlivesTheShutdownPhaseTimeoutHasItsLockReleasedAtClose() throws Exception {
        runner().run(other -> runner().withPropertyValues("spring.lifecycle.timeout-per-shutdown-phase=300ms")
                .run(context -> {
                    LockService otherNode = other.getBean(LockService.class);
                    SlowJob job = context.getBean(SlowJob.class);
                    CountDownLatch started = new CountDownLatch(1);
                    CountDownLatch finish = new CountDownLatch(1);
                    Thread work = new Thread(() -> job.run(started, finish));
                    work.start();
                    started.await();
                    context.close();
                    assertThat(isFree(otherNode, "slow")).as("released by close() after the timeout").isTrue();
                    finish.countDown();
                    work.join(10_000);
                }));
    }

    /** A locked method that runs until told to finish. */
    static class SlowJob {

        private volatile boolean completed;

        // Read through a method: callers hold the CGLIB proxy, whose own fields are never set.
        public boolean completed() {
            return completed;
        }

        @DistributedLock(name = "slow", waitTime = "0")
        public void run(CountDownLatch started, CountDownLatch finish) {
            started.countDown();
            try {
                finish.await();
                completed = true;
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
