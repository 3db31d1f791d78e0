/**
 * Spring Boot auto-configuration of distlock: the lock service and its graceful shutdown, {@code @DistributedLock},
 * metrics, tracing, and the actuator endpoint and health. The lock stores plug in from their own modules: each
 * registers a {@link dev.distlock.autoconfigure.LockStoreRegistration} and brings an auto-configuration marked
 * {@link dev.distlock.autoconfigure.ConditionalOnLockStore}, which orders itself before
 * {@link dev.distlock.autoconfigure.DistlockAutoConfiguration}.
 */
@NullMarked
package dev.distlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
