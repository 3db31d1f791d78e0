/**
 * Leadership: one instance at a time runs a long-lived role (a queue consumer, a scheduler), on any lock store.
 * {@link dev.distlock.LockService#campaign} starts a campaign; the leader holds a watchdog lease whose fencing token
 * fences its writes, and is told it lost the role no later than the lease can have expired.
 */
@NullMarked
package dev.distlock.leader;

import org.jspecify.annotations.NullMarked;
