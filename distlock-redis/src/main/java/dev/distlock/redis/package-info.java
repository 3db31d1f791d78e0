/**
 * The Redis lock store: {@link dev.distlock.redis.RedisLockStore} on a Spring Data Redis connection factory
 * (standalone, Sentinel, Cluster; Lettuce or Jedis), its Lua scripts and release notifications, and
 * {@link dev.distlock.redis.RedlockStore} for quorum locking over independent masters.
 */
@NullMarked
package dev.distlock.redis;

import org.jspecify.annotations.NullMarked;
