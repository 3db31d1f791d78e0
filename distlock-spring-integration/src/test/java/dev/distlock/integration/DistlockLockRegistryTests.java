package dev.distlock.integration;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.locks.Lock;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.integration.autoconfigure.DistlockIntegrationAutoConfiguration;
import dev.distlock.redis.autoconfigure.DistlockRedisAutoConfiguration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.integration.support.locks.DefaultLockRegistry;
import org.springframework.integration.support.locks.DistributedLock;
import org.springframework.integration.support.locks.LockRegistry;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;
import static org.awaitility.Awaitility.await;

/**
 * {@link DistlockLockRegistry} as a Redis application gets it (auto-configured), against a real Redis: two
 * application contexts stand for two instances.
 */
class DistlockLockRegistryTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private ApplicationContextRunner application(RedisServerProcess redis) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
                        DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class,
                        DistlockIntegrationAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + redis.port());
    }

    @Test
    void aKeysLockExcludesTheOtherInstanceAndIsTheSameObjectForTheSameKey() {
        RedisServerProcess redis = redisServers.start();
        application(redis).run(first -> application(redis).run(second -> {
            LockRegistry<?> mine = first.getBean(LockRegistry.class);
            LockRegistry<?> theirs = second.getBean(LockRegistry.class);
            assertThat(mine).isInstanceOf(DistlockLockRegistry.class);
            Lock lock = mine.obtain("orders");
            assertThat(mine.obtain("orders")).isSameAs(lock);
            lock.lock();
            assertThat(theirs.obtain("orders").tryLock()).isFalse();
            assertThat(lock.tryLock()).as("reentrant for the owner").isTrue();
            lock.unlock();
            assertThat(theirs.obtain("orders").tryLock()).as("one hold left").isFalse();
            assertThat(CompletableFuture.runAsync(lock::unlock)).as("another thread cannot unlock it")
                    .failsWithin(Duration.ofSeconds(5)).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(IllegalMonitorStateException.class);
            lock.unlock();
            Lock other = theirs.obtain("orders");
            assertThat(other.tryLock()).isTrue();
            other.unlock();
        }));
    }

    @Test
    void aTimeToLivePerCallIsAFixedLeaseThatEndsWithoutAnUnlock() throws Exception {
        RedisServerProcess redis = redisServers.start();
        application(redis).run(first -> application(redis).run(second -> {
            DistributedLock lock = (DistributedLock) first.getBean(LockRegistry.class).obtain("report");
            assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(500))).isTrue();
            DistributedLock theirs = (DistributedLock) second.getBean(LockRegistry.class).obtain("report");
            assertThat(theirs.tryLock(5, TimeUnit.SECONDS)).as("free once the time to live passed").isTrue();
            theirs.unlock();
        }));
    }

    @Test
    void executeLockedRunsTheTaskUnderTheLock() {
        RedisServerProcess redis = redisServers.start();
        application(redis).run(first -> application(redis).run(second -> {
            LockRegistry<?> theirs = second.getBean(LockRegistry.class);
            String result = first.getBean(DistlockLockRegistry.class).executeLocked("invoice",
                    () -> theirs.obtain("invoice").tryLock() ? "not excluded" : "excluded");
            assertThat(result).isEqualTo("excluded");
        }));
    }

    @Test
    void keysAreLockNamesAndUnusedLocksAreForgottenButHeldOnesAreNot() {
        RedisServerProcess redis = redisServers.start();
        application(redis).run(context -> {
            DistlockLockRegistry registry = context.getBean(DistlockLockRegistry.class);
            assertThatIllegalArgumentException().isThrownBy(() -> registry.obtain(42))
                    .withMessageContaining("String lock keys").withMessageContaining("java.lang.Integer");
            Lock held = registry.obtain("held");
            Lock unused = registry.obtain("unused");
            held.lock();
            await().atMost(Duration.ofSeconds(5)).until(() -> {
                registry.expireUnusedOlderThan(0);
                return registry.obtain("unused") != unused;
            });
            registry.expireUnusedOlderThan(-1_000);
            assertThat(registry.obtain("held")).as("held: never forgotten").isSameAs(held);
            held.unlock();
        });
    }

    @Test
    void anApplicationsOwnLockRegistryWins() {
        RedisServerProcess redis = redisServers.start();
        application(redis).withBean(LockRegistry.class, DefaultLockRegistry::new).run(context -> {
            assertThat(context).doesNotHaveBean(DistlockLockRegistry.class);
            assertThat(context.getBean(LockRegistry.class)).isInstanceOf(DefaultLockRegistry.class);
        });
    }
}
