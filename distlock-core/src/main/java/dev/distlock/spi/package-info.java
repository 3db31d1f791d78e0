/**
 * Extension points of the lock engine: the store SPI ({@link dev.distlock.spi.LockStore}) that a Redis, JDBC or
 * ZooKeeper store implements, event callbacks for metrics and tracing ({@link dev.distlock.spi.LockListener}), and
 * a read-only view of the locks this instance holds for the actuator endpoint and health.
 */
@NullMarked
package dev.distlock.spi;

import org.jspecify.annotations.NullMarked;
