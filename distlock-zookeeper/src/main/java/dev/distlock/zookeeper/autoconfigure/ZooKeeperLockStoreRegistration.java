package dev.distlock.zookeeper.autoconfigure;

import java.util.List;

import dev.distlock.autoconfigure.LockStoreRegistration;

/**
 * Registers the ZooKeeper lock store as {@code distlock.store=zookeeper} (in {@code META-INF/spring.factories});
 * present when Apache Curator is on the class path.
 */
public final class ZooKeeperLockStoreRegistration implements LockStoreRegistration {

    /** The id of the ZooKeeper store, the value of {@code distlock.store} that selects it. */
    public static final String ID = "zookeeper";

    @Override
    public String id() {
        return ID;
    }

    @Override
    public List<String> requiredClassNames() {
        // By name: loading this registration must not load them.
        return List.of("dev.distlock.zookeeper.ZooKeeperLockStore",
                "org.apache.curator.framework.CuratorFramework");
    }

    @Override
    public String starter() {
        return "dev.distlock:distlock-spring-boot-starter-zookeeper";
    }

    @Override
    public String requirement() {
        return "for ZooKeeper a CuratorFramework or distlock.zookeeper.*";
    }
}
