/**
 * Test support for distlock. For applications: {@link dev.distlock.test.InMemoryLockService} (the real engine in
 * memory, for unit and slice tests) with {@link dev.distlock.test.DistlockAssertions}, and
 * {@link dev.distlock.test.DistlockTest @DistlockTest} (an embedded Redis for integration tests). For lock stores:
 * {@link dev.distlock.test.LockStoreContractTests}, which every store passes, and {@link dev.distlock.test.LockHistory}
 * for fault tests.
 */
@NullMarked
package dev.distlock.test;

import org.jspecify.annotations.NullMarked;
