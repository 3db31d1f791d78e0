/**
 * A lock store over several independent stores ({@link dev.distlock.quorum.QuorumLockStore}): a lock is held when a
 * majority of them granted it, so that locking goes on while a minority of the stores is down. Redlock is this
 * quorum over Redis masters.
 */
@NullMarked
package dev.distlock.quorum;

import org.jspecify.annotations.NullMarked;
