package dev.distlock.redis.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * Redis Cluster settings of the lock store ({@code distlock.cluster.*}).
 *
 * @param shardedPubsub Whether release notifications use sharded pub/sub (SSUBSCRIBE/SPUBLISH, Redis 7+, Lettuce):
 *        one channel per hash slot, subscribed on each master, so that a release's message stays in its shard
 *        instead of crossing the cluster bus to every node. A Redis user with channel rules needs the channel
 *        pattern 'distlock:released:*' (with the default key prefix) among them. Off: one channel,
 *        'distlock:released'.
 */
@ConfigurationProperties("distlock.cluster")
public record RedisClusterProperties(boolean shardedPubsub) {
}
