/**
 * The store-neutral lock engine ({@link dev.distlock.core.StoreLockService}): local queues, the wait loop,
 * call-chain reentrancy, the lease watchdog, listeners and the held-lock registry, over any
 * {@link dev.distlock.spi.LockStore}.
 */
@NullMarked
package dev.distlock.core;

import org.jspecify.annotations.NullMarked;
