/**
 * Spring Boot auto-configuration of the ZooKeeper lock store: {@link dev.distlock.zookeeper.ZooKeeperLockStore} on
 * the application's Curator client, or on one of its own that connects where the
 * {@link dev.distlock.zookeeper.autoconfigure.ZooKeeperConnectionDetails} say. Registered as the {@code zookeeper}
 * store by {@link dev.distlock.zookeeper.autoconfigure.ZooKeeperLockStoreRegistration}.
 */
@NullMarked
package dev.distlock.zookeeper.autoconfigure;

import org.jspecify.annotations.NullMarked;
