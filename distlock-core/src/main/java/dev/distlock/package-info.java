/**
 * The public API of distlock: {@link dev.distlock.LockService}, {@link dev.distlock.LockHandle},
 * {@link dev.distlock.LockOptions}, {@link dev.distlock.LockContext} and the exceptions.
 */
@NullMarked
package dev.distlock;

import org.jspecify.annotations.NullMarked;
