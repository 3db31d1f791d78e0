/**
 * The ZooKeeper lock store ({@link dev.distlock.zookeeper.ZooKeeperLockStore}) on Apache Curator: one ephemeral
 * sequential node per lock request, waiting on the predecessor node only, fencing tokens from the node's creation
 * zxid, and the lease bound to the ZooKeeper session.
 */
@NullMarked
package dev.distlock.zookeeper;

import org.jspecify.annotations.NullMarked;
