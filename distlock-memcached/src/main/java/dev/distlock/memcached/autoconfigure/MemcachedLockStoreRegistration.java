package dev.distlock.memcached.autoconfigure;

import java.util.List;

import dev.distlock.autoconfigure.LockStoreRegistration;

/** Registers the Memcached lock store as {@code distlock.store=memcached} (in {@code META-INF/spring.factories}). */
public final class MemcachedLockStoreRegistration implements LockStoreRegistration {

    /** The id of the Memcached store, the value of {@code distlock.store} that selects it. */
    public static final String ID = "memcached";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public List<String> requiredClassNames() { // by name: loading this registration must not load them
        return List.of("dev.distlock.memcached.MemcachedLockStore", "com.spotify.folsom.MemcacheClient");
    }

    @Override
    public String starter() {
        return "dev.distlock:distlock-spring-boot-starter-memcached";
    }

    @Override
    public String requirement() {
        return "for Memcached distlock.memcached.servers";
    }
}
