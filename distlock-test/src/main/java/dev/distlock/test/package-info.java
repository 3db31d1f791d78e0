/**
 * Test support for applications that use distlock: {@link dev.distlock.test.InMemoryLockService} (the real engine
 * in memory, for unit and slice tests) with {@link dev.distlock.test.DistlockAssertions}, and
 * {@link dev.distlock.test.DistlockTest @DistlockTest} (an embedded Redis for integration tests). What distlock's own
 * tests share (the store contract suite, LockHistory, the fault tools) is in the unpublished distlock-test-support.
 */
@NullMarked
package dev.distlock.test;

import org.jspecify.annotations.NullMarked;
