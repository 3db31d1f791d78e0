package dev.distlock.redis.autoconfigure;

import java.time.Duration;

import dev.distlock.redis.RedisLockConfig;

import org.springframework.boot.context.properties.ConfigurationProperties;
import org.springframework.boot.context.properties.bind.DefaultValue;

/**
 * Redis replica acknowledgement of lock writes ({@code distlock.replication.*}). Validated when the store is made
 * ({@link dev.distlock.redis.MinReplicas#parse}, {@link RedisLockConfig}), with messages naming the property.
 *
 * @param minReplicas How many replicas must acknowledge a lock write (WAIT) before an acquire returns and a
 *        renewal counts: 'auto' or a whole number. 'auto' waits for one behind Sentinel, always (a monitored master
 *        that lists no replica is taken for an old master cut off from them), and elsewhere (a standalone master,
 *        each Cluster master) for one whenever the master has a replica online, none when it has none. Fewer within
 *        the timeout undo the acquire and fail it with LockUnavailableException. 0 does not wait. Locks survive any
 *        single failover only when it is the number of replicas (with one of two, an old master that still runs
 *        grants until demoted); 'auto' covers the failover of a stopped master.
 * @param timeout How long an acquire or renewal waits for the replica acknowledgements.
 */
@ConfigurationProperties("distlock.replication")
public record RedisReplicationProperties(@DefaultValue(RedisLockConfig.DEFAULT_MIN_REPLICAS) String minReplicas,
        @DefaultValue(RedisLockConfig.DEFAULT_REPLICATION_TIMEOUT) Duration timeout) {
}
