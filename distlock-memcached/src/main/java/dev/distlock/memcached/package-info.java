/**
 * The Memcached lock store ({@link dev.distlock.memcached.MemcachedLockStore}). Its client is Spotify's Folsom: kept
 * up to date, non-blocking on Netty, with {@link java.util.concurrent.CompletionStage} answers that the store SPI
 * takes as they are (no {@code BlockingCalls} pool) and CAS on the ascii protocol; spymemcached (last release 2017)
 * and xmemcached answer through blocking or callback futures that would need a pool or an adapter per call.
 */
@NullMarked
package dev.distlock.memcached;

import org.jspecify.annotations.NullMarked;
