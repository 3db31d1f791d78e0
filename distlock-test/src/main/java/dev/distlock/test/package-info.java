/**
 * Test support for distlock: {@link dev.distlock.test.LockHistory} for fault tests,
 * {@link dev.distlock.test.LockStoreContractTests} that every lock store passes, and helpers for applications.
 */
@NullMarked
package dev.distlock.test;

import org.jspecify.annotations.NullMarked;
