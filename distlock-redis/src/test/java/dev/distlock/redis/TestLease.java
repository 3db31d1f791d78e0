package dev.distlock.redis;

import dev.distlock.spi.Lease;
import dev.distlock.spi.LockRequest;

/**
 * Test support: a lease as the engine hands it to a store, for tests that call the store directly.
 *
 * @param request the request it was granted for
 * @param fencingToken its token
 */
record TestLease(LockRequest request, long fencingToken) implements Lease {
}
