package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.LockHandle;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import dev.distlock.listener.LockListener;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalStateException;

/**
 * Redis ACL users: one with the rights distlock needs locks; one without the release channel's permission fails at
 * start-up, naming the permission, instead of failing every contended release later.
 */
class RedisAclTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    private final LockNodes nodes = new LockNodes();

    @AfterEach
    void close() {
        nodes.close();
    }

    private LettuceConnectionFactory factory(RedisServerProcess server, String user, String password) {
        RedisStandaloneConfiguration configuration = new RedisStandaloneConfiguration(server.host(), server.port());
        configuration.setUsername(user);
        configuration.setPassword(password);
        LettuceConnectionFactory factory = new LettuceConnectionFactory(configuration);
        factory.afterPropertiesSet();
        factory.start();
        return factory;
    }

    @Test
    void aUserWithoutTheChannelPermissionFailsAtStartUpNamingIt() {
        RedisServerProcess server = redisServers.start("--user", "default", "off", "--user", "locker", "on",
                ">s3cret", "~acl:*", "resetchannels", "+@all");
        LettuceConnectionFactory factory = factory(server, "locker", "s3cret");
        try {
            StoreLockService service = new StoreLockService(new RedisLockStore(factory, LockNodes.redisConfig("acl")),
                    LockConfig.defaults(), LockListener.NONE);
            assertThatIllegalStateException().isThrownBy(service::start).withMessageContaining("&acl:released");
            service.close();
        }
        finally {
            factory.destroy();
        }
    }

    @Test
    void aUserWithTheKeyAndChannelPermissionsLocks() {
        RedisServerProcess server = redisServers.start("--user", "default", "off", "--user", "locker", "on",
                ">s3cret", "~acl:*", "resetchannels", "&acl:released", "+@all");
        LettuceConnectionFactory factory = factory(server, "locker", "s3cret");
        try {
            StoreLockService a = nodes.node(factory, LockConfig.defaults().withWaitTime(Duration.ofSeconds(2)),
                    LockNodes.redisConfig("acl"), LockListener.NONE);
            try (LockHandle handle = a.lock("orders")) {
                assertThat(handle.isHeld()).isTrue();
            }
        }
        finally {
            nodes.close();
            factory.destroy();
        }
    }

    /** INFO is in @dangerous: without it, min-replicas=auto cannot see replicas and waits for none (with a WARN). */
    @Test
    void aUserWithoutInfoLocksWithTheDefaultReplicaSetting() {
        RedisServerProcess server = redisServers.start("--user", "default", "off", "--user", "locker", "on",
                ">s3cret", "~acl:*", "resetchannels", "&acl:released", "+@all", "-@dangerous");
        LettuceConnectionFactory factory = factory(server, "locker", "s3cret");
        try {
            StoreLockService a = nodes.node(factory, LockConfig.defaults().withWaitTime(Duration.ofSeconds(2)),
                    LockNodes.redisConfig("acl"), LockListener.NONE);
            for (int i = 0; i < 3; i++) {
                try (LockHandle handle = a.lock("no-info-" + i)) {
                    assertThat(handle.isHeld()).isTrue();
                }
            }
        }
        finally {
            nodes.close();
            factory.destroy();
        }
    }
}
