package dev.distlock.etcd.autoconfigure;

import java.util.List;

import dev.distlock.autoconfigure.LockStoreRegistration;

/**
 * Registers the etcd lock store as {@code distlock.store=etcd} (in {@code META-INF/spring.factories}); present
 * when jetcd is on the class path.
 */
public final class EtcdLockStoreRegistration implements LockStoreRegistration {

    /** The id of the etcd store, the value of {@code distlock.store} that selects it. */
    public static final String ID = "etcd";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public List<String> requiredClassNames() {
        // By name: loading this registration must not load them.
        return List.of("dev.distlock.etcd.EtcdLockStore", "io.etcd.jetcd.Client");
    }

    @Override
    public String starter() {
        return "dev.distlock:distlock-spring-boot-starter-etcd";
    }

    @Override
    public String requirement() {
        return "for etcd a jetcd Client or distlock.etcd.*";
    }
}
