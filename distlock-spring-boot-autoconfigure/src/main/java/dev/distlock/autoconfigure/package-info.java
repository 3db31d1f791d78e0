/**
 * Spring Boot auto-configuration of distlock: the lock store chosen by class path and {@code distlock.store}, the
 * lock service and its graceful shutdown, {@code @DistributedLock}, metrics, tracing, and the actuator endpoint and
 * health.
 */
@NullMarked
package dev.distlock.autoconfigure;

import org.jspecify.annotations.NullMarked;
