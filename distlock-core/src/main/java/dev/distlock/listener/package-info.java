/**
 * What the lock engine tells about locking as it happens, for metrics, tracing and logging: {@link
 * dev.distlock.listener.LockListener} and its event types. An application or a module adds a listener as a bean;
 * {@link dev.distlock.listener.CompositeLockListener} shields the engine from a failing one.
 */
@NullMarked
package dev.distlock.listener;

import org.jspecify.annotations.NullMarked;
