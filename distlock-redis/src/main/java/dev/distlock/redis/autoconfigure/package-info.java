/**
 * Spring Boot auto-configuration of the Redis lock store: {@link dev.distlock.redis.RedisLockStore} on the
 * application's {@code RedisConnectionFactory}, or {@link dev.distlock.redis.RedlockStore} when
 * {@code distlock.redlock.nodes} lists independent masters. Registered as the {@code redis} store by
 * {@link dev.distlock.redis.autoconfigure.RedisLockStoreRegistration}.
 */
@NullMarked
package dev.distlock.redis.autoconfigure;

import org.jspecify.annotations.NullMarked;
