package dev.distlock.redis.autoconfigure;

import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * How the Redis lock store sends its scripts ({@code distlock.redis.*}).
 *
 * @param batchedScripts Whether the lock scripts of an instance are sent like a group commit (standalone and
 *        Sentinel, on Lettuce; ignored on Redis Cluster and Redlock): one call in flight at a time, and the acquires
 *        and releases that queued meanwhile in one script call. Saves client CPU when many threads of an instance
 *        lock at once (dozens: measured at 64, more cycles per second); costs throughput with few (measured at 8),
 *        whose calls would otherwise be in flight together. Off: one script call per acquire and per release.
 */
@ConfigurationProperties("distlock.redis")
public record RedisScriptProperties(boolean batchedScripts) {
}
