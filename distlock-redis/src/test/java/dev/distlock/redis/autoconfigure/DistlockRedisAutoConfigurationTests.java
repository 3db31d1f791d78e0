package dev.distlock.redis.autoconfigure;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.data.redis.core.StringRedisTemplate;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The Redis store's auto-configuration on Spring Boot's Redis auto-configuration, against a real Redis: ACL
 * credentials, Jedis as well as Lettuce, and Redlock nodes. This module's class path is a Redis application's.
 */
class DistlockRedisAutoConfigurationTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private final ApplicationContextRunner runner = new ApplicationContextRunner().withConfiguration(
            AutoConfigurations.of(DataRedisAutoConfiguration.class, DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class));

    @Test
    void locksOnAnAclProtectedRedisWithSpringDataRedisCredentials() {
        RedisServerProcess server = redisServers.start("--user", "default", "off", "--user", "locker", "on",
                ">s3cret", "~*", "&*", "+@all");
        runner.withPropertyValues("spring.data.redis.port=" + server.port(), "spring.data.redis.host=127.0.0.1",
                "spring.data.redis.username=locker", "spring.data.redis.password=s3cret",
                "distlock.key-prefix=acl").run(context -> {
                    assertThat(context).hasSingleBean(StoreLockService.class);
                    LockService locks = context.getBean(LockService.class);
                    try (LockHandle handle = locks.lock("orders")) {
                        assertThat(context.getBean(StringRedisTemplate.class).hasKey("acl:{orders}")).isTrue();
                    }
                });
    }

    @Test
    void wrongCredentialsFailClosed() {
        RedisServerProcess server = redisServers.start("--user", "default", "off", "--user", "locker", "on",
                ">s3cret", "~*", "&*", "+@all");
        runner.withPropertyValues("spring.data.redis.port=" + server.port(), "spring.data.redis.username=locker",
                "spring.data.redis.password=wrong").run(context -> {
                    LockService locks = context.getBean(LockService.class);
                    org.assertj.core.api.Assertions.assertThatThrownBy(() -> locks.lock("orders"))
                            .isInstanceOf(dev.distlock.LockUnavailableException.class);
                });
    }

    @Test
    void locksOnJedisTooSoLockingIsNeverSilentlyOff() {
        RedisServerProcess server = redisServers.start();
        runner.withPropertyValues("spring.data.redis.port=" + server.port(), "spring.data.redis.host=127.0.0.1",
                "spring.data.redis.client-type=jedis", "distlock.key-prefix=jedis").run(context -> {
                    assertThat(context.getBean(org.springframework.data.redis.connection.RedisConnectionFactory.class))
                            .isInstanceOf(org.springframework.data.redis.connection.jedis.JedisConnectionFactory.class);
                    LockService locks = context.getBean(LockService.class);
                    try (LockHandle handle = locks.lock("orders")) {
                        assertThat(context.getBean(StringRedisTemplate.class).hasKey("jedis:{orders}")).isTrue();
                        assertThat(locks.tryLock("orders", dev.distlock.LockOptions.defaults()
                                .withWaitTime(java.time.Duration.ZERO))).isEmpty();
                    }
                });
    }

    @Test
    void batchedScriptsAreOffByDefaultAndOnWithTheProperty() {
        RedisServerProcess server = redisServers.start();
        runner.withPropertyValues("spring.data.redis.port=" + server.port(), "spring.data.redis.host=127.0.0.1")
                .run(context -> assertThat(context.getBean(dev.distlock.redis.RedisLockStore.class).config()
                        .batchedScripts()).isFalse());
        runner.withPropertyValues("spring.data.redis.port=" + server.port(), "spring.data.redis.host=127.0.0.1",
                "distlock.redis.batched-scripts=true", "distlock.key-prefix=batched").run(context -> {
                    assertThat(context.getBean(dev.distlock.redis.RedisLockStore.class).config().batchedScripts())
                            .isTrue();
                    try (LockHandle handle = context.getBean(LockService.class).lock("orders")) {
                        assertThat(context.getBean(StringRedisTemplate.class).hasKey("batched:{orders}")).isTrue();
                    }
                });
    }

    @Test
    void redlockNodesMakeAQuorumStoreOverTheMasters() {
        dev.distlock.embedded.RedisServerGroup masters = dev.distlock.embedded.RedisTopologies.sharedGroup();
        runner.withPropertyValues("distlock.redlock.nodes=" + masters.uris(), "distlock.key-prefix=rl").run(context -> {
            assertThat(context).hasSingleBean(dev.distlock.redis.RedlockStore.class)
                    .doesNotHaveBean(dev.distlock.redis.RedisLockStore.class);
            try (LockHandle handle = context.getBean(LockService.class).lock("orders")) {
                long holders = masters.servers().stream().filter(m -> Long.valueOf(1).equals(m.call("EXISTS",
                        "rl:{orders}"))).count();
                assertThat(holders).as("written on a majority of the five masters").isGreaterThanOrEqualTo(3);
            }
        });
    }

    @Test
    void redlockNeedsThreeWellFormedNodesNamingTheProperty() {
        runner.withPropertyValues("distlock.redlock.nodes=redis://127.0.0.1:1,redis://127.0.0.1:2")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("distlock.redlock.nodes needs at least 3"));
        runner.withPropertyValues("distlock.redlock.nodes=redis://127.0.0.1:1,http://x:2,redis://127.0.0.1:3")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("distlock.redlock.nodes[1] is not a Redis URI"));
    }
}
