package dev.distlock.redis.autoconfigure;

import java.util.List;

import dev.distlock.autoconfigure.LockStoreRegistration;

/**
 * Registers the Redis lock store as {@code distlock.store=redis} (in {@code META-INF/spring.factories}); present
 * when Spring Data Redis is on the class path.
 */
public final class RedisLockStoreRegistration implements LockStoreRegistration {

    /** The id of the Redis store, the value of {@code distlock.store} that selects it. */
    public static final String ID = "redis";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public List<String> requiredClassNames() {
        // By name: loading this registration must not load them.
        return List.of("dev.distlock.redis.RedisLockStore",
                "org.springframework.data.redis.connection.RedisConnectionFactory");
    }

    @Override
    public String starter() {
        return "dev.distlock:distlock-spring-boot-starter";
    }

    @Override
    public String requirement() {
        return "for Redis a RedisConnectionFactory (spring.data.redis.*) or distlock.redlock.nodes";
    }
}
