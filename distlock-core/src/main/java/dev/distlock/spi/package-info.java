/**
 * The store SPI: what a lock store implements ({@link dev.distlock.spi.LockStore}) and what it receives or answers
 * (requests, leases, attempts, results, health, the events it reports). Only store authors need this package;
 * features that combine stores wrap them through it ({@link dev.distlock.spi.ForwardingLockStore},
 * {@link dev.distlock.quorum.QuorumLockStore}).
 */
@NullMarked
package dev.distlock.spi;

import org.jspecify.annotations.NullMarked;
