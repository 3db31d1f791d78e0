/**
 * Micrometer integration of distlock: the meters of the contract ({@code distlock.acquire}, {@code distlock.held},
 * {@code distlock.release}, {@code distlock.lease.lost}, {@code distlock.renewal}) and optional observations for
 * tracing, both as {@link dev.distlock.listener.LockListener engine listeners}.
 */
@NullMarked
package dev.distlock.metrics;

import org.jspecify.annotations.NullMarked;
