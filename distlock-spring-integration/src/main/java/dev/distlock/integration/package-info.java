/**
 * Spring Integration on distlock: {@link dev.distlock.integration.DistlockLockRegistry}, a {@code LockRegistry} whose
 * locks are distlock's, for {@code LockRegistryLeaderInitiator}, aggregators and every other component that takes a
 * {@code LockRegistry}.
 */
@NullMarked
package dev.distlock.integration;

import org.jspecify.annotations.NullMarked;
