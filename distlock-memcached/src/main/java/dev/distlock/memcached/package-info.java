/**
 * The Memcached lock store: {@link dev.distlock.memcached.MemcachedLockStore} and its settings
 * {@link dev.distlock.memcached.MemcachedLockConfig}.
 * <p>
 * The client is Spotify's Folsom ({@code com.spotify:folsom}): maintained, non-blocking on Netty, and its answers are
 * {@link java.util.concurrent.CompletionStage}s, which the store SPI takes as they are (no {@code BlockingCalls}
 * pool), with CAS on the ascii protocol ({@code gets}/{@code cas}). spymemcached (last released 2017) and
 * xmemcached answer through blocking or callback-style futures that would need a pool or an adapter per call.
 */
@NullMarked
package dev.distlock.memcached;

import org.jspecify.annotations.NullMarked;
