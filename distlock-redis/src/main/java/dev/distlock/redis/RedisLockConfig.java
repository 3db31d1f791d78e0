package dev.distlock.redis;

import java.time.Duration;

import dev.distlock.InvalidPropertyException;
import dev.distlock.LockException;
import dev.distlock.core.LockDefaults;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.convert.DurationStyle;

/**
 * Settings of the {@link RedisLockStore}, validated in the constructor; messages name the {@code distlock.*}
 * property each setting is bound from, so a bad value fails start-up with the property at fault.
 *
 * @param keyPrefix namespace of every Redis key ({@code distlock.key-prefix})
 * @param commandTimeout bound on each Redis call of the lock path ({@code distlock.command-timeout})
 * @param minReplicas replicas that must acknowledge a lock write before an acquire returns and a renewal counts
 *        ({@code distlock.replication.min-replicas}): {@link MinReplicas#AUTO} (the default) or a number; 0 does not
 *        wait
 * @param replicationTimeout how long an acquire waits for those acknowledgements
 *        ({@code distlock.replication.timeout})
 * @param redlockMaster whether the server is one of Redlock's masters ({@link RedlockStore#connect}), whose callers
 *        are a quorum that polls instead of queueing. Then a release that leaves a lock free keeps its holder's
 *        fencing token on the server for a second (the lease, when shorter), as the floor of the name's next token:
 *        the next majority may lack the master whose clock issued the last token. And a refused attempt flags the
 *        holder, so that its release publishes the name and the pollers try at once. Off by default: a released
 *        lock then leaves no key, and one master's tokens follow its own clock.
 * @param shardedPubsub whether release notifications use sharded pub/sub ({@code distlock.cluster.sharded-pubsub}):
 *        on Redis Cluster 7+ through Lettuce, a channel per hash slot ({@code SPUBLISH}, {@code SSUBSCRIBE} on
 *        each master), so that a release's message stays in its shard. Off by default: one channel, whose messages
 *        Redis Cluster sends to every node.
 * @param batchedScripts whether the lock scripts of a connection are sent like a group commit
 *        ({@code distlock.redis.batched-scripts}, {@link ScriptBatcher}): standalone and Sentinel on Lettuce, one
 *        call in flight, what queued meanwhile in one script call. Off by default: it pays with many callers per
 *        instance, and costs with few
 */
public record RedisLockConfig(String keyPrefix, Duration commandTimeout, MinReplicas minReplicas,
        Duration replicationTimeout, boolean redlockMaster, boolean shardedPubsub, boolean batchedScripts) {

    /** The default of {@code distlock.replication.min-replicas}. */
    public static final String DEFAULT_MIN_REPLICAS = "auto";

    /** The default of {@code distlock.replication.timeout}. */
    public static final String DEFAULT_REPLICATION_TIMEOUT = "1s";

    private static final RedisLockConfig DEFAULTS = new RedisLockConfig(LockDefaults.KEY_PREFIX,
            LockDefaults.COMMAND_TIMEOUT, MinReplicas.parse(DEFAULT_MIN_REPLICAS),
            DurationStyle.detectAndParse(DEFAULT_REPLICATION_TIMEOUT), false, false, false);

    /**
     * Validates the settings.
     */
    public RedisLockConfig {
        require(keyPrefix != null && !keyPrefix.isBlank(), "distlock.key-prefix", "must not be blank");
        require(keyPrefix.indexOf('{') < 0 && keyPrefix.indexOf('}') < 0, "distlock.key-prefix",
                "must not contain '{' or '}' (they would break Redis Cluster hash tags): " + keyPrefix);
        require(commandTimeout != null && commandTimeout.toMillis() >= 1, "distlock.command-timeout",
                "must be at least 1 ms: " + millis(commandTimeout));
        require(minReplicas != null, "distlock.replication.min-replicas", "must be 'auto' or a whole number >= 0");
        require(replicationTimeout != null && replicationTimeout.toMillis() >= 1, "distlock.replication.timeout",
                "must be at least 1 ms: " + millis(replicationTimeout));
    }

    /**
     * Settings whose scripts go out one call each.
     *
     * @param keyPrefix namespace of every Redis key
     * @param commandTimeout bound on each Redis call
     * @param minReplicas replicas that must acknowledge a lock write
     * @param replicationTimeout how long to wait for them
     * @param redlockMaster whether the server is one of Redlock's masters
     * @param shardedPubsub whether release notifications use sharded pub/sub
     */
    public RedisLockConfig(String keyPrefix, Duration commandTimeout, MinReplicas minReplicas,
            Duration replicationTimeout, boolean redlockMaster, boolean shardedPubsub) {
        this(keyPrefix, commandTimeout, minReplicas, replicationTimeout, redlockMaster, shardedPubsub, false);
    }

    /**
     * Settings with release notifications on one channel.
     *
     * @param keyPrefix namespace of every Redis key
     * @param commandTimeout bound on each Redis call
     * @param minReplicas replicas that must acknowledge a lock write
     * @param replicationTimeout how long to wait for them
     * @param redlockMaster whether the server is one of Redlock's masters
     */
    public RedisLockConfig(String keyPrefix, Duration commandTimeout, MinReplicas minReplicas,
            Duration replicationTimeout, boolean redlockMaster) {
        this(keyPrefix, commandTimeout, minReplicas, replicationTimeout, redlockMaster, false);
    }

    /**
     * Settings whose releases leave no key.
     *
     * @param keyPrefix namespace of every Redis key
     * @param commandTimeout bound on each Redis call
     * @param minReplicas replicas that must acknowledge a lock write
     * @param replicationTimeout how long to wait for them
     */
    public RedisLockConfig(String keyPrefix, Duration commandTimeout, MinReplicas minReplicas,
            Duration replicationTimeout) {
        this(keyPrefix, commandTimeout, minReplicas, replicationTimeout, false);
    }

    /**
     * Settings with a fixed replica count.
     *
     * @param keyPrefix namespace of every Redis key
     * @param commandTimeout bound on each Redis call
     * @param minReplicas replicas that must acknowledge a lock write; 0 does not wait
     * @param replicationTimeout how long to wait for them
     */
    public RedisLockConfig(String keyPrefix, Duration commandTimeout, int minReplicas, Duration replicationTimeout) {
        this(keyPrefix, commandTimeout, MinReplicas.of(minReplicas), replicationTimeout);
    }

    /** @return the documented defaults */
    public static RedisLockConfig defaults() {
        return DEFAULTS;
    }

    private static void require(boolean condition, String property, String problem) {
        if (!condition) {
            throw new InvalidPropertyException(property, problem);
        }
    }

    private static String millis(@Nullable Duration duration) {
        return duration == null ? "none" : LockException.millis(duration);
    }

    /** @param keyPrefix the key prefix @return a copy with it */
    public RedisLockConfig withKeyPrefix(String keyPrefix) {
        return new RedisLockConfig(keyPrefix, commandTimeout, minReplicas, replicationTimeout, redlockMaster,
                shardedPubsub, batchedScripts);
    }

    /** @param commandTimeout the Redis call bound @return a copy with it */
    public RedisLockConfig withCommandTimeout(Duration commandTimeout) {
        return new RedisLockConfig(keyPrefix, commandTimeout, minReplicas, replicationTimeout, redlockMaster,
                shardedPubsub, batchedScripts);
    }

    /**
     * @param minReplicas replicas that must acknowledge a lock write
     * @param timeout how long to wait for them
     * @return a copy with them
     */
    public RedisLockConfig withReplication(int minReplicas, Duration timeout) {
        return withReplication(MinReplicas.of(minReplicas), timeout);
    }

    /**
     * @param minReplicas replicas that must acknowledge a lock write ({@link MinReplicas#AUTO} or a number)
     * @param timeout how long to wait for them
     * @return a copy with them
     */
    public RedisLockConfig withReplication(MinReplicas minReplicas, Duration timeout) {
        return new RedisLockConfig(keyPrefix, commandTimeout, minReplicas, timeout, redlockMaster, shardedPubsub,
                batchedScripts);
    }

    /** @return a copy for one of Redlock's masters (see {@link #redlockMaster()}) */
    public RedisLockConfig asRedlockMaster() {
        return new RedisLockConfig(keyPrefix, commandTimeout, minReplicas, replicationTimeout, true, shardedPubsub,
                batchedScripts);
    }

    /** @return a copy whose release notifications use sharded pub/sub (see {@link #shardedPubsub()}) */
    public RedisLockConfig withShardedPubsub() {
        return new RedisLockConfig(keyPrefix, commandTimeout, minReplicas, replicationTimeout, redlockMaster, true,
                batchedScripts);
    }

    /** @return a copy whose lock scripts are sent like a group commit (see {@link #batchedScripts()}) */
    public RedisLockConfig withBatchedScripts() {
        return new RedisLockConfig(keyPrefix, commandTimeout, minReplicas, replicationTimeout, redlockMaster,
                shardedPubsub, true);
    }
}
