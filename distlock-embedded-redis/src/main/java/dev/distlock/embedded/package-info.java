/**
 * Real {@code redis-server} processes on loopback ports for tests, samples and benchmarks: single servers
 * ({@link dev.distlock.embedded.RedisServerProcess}), Sentinel and Cluster topologies, groups of independent masters,
 * and a JUnit extension that starts them ({@link dev.distlock.embedded.RedisServersExtension}).
 */
@NullMarked
package dev.distlock.embedded;

import org.jspecify.annotations.NullMarked;
