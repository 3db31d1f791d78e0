package dev.distlock.redis;

import java.time.Duration;
import java.util.function.Predicate;

import dev.distlock.InvalidPropertyException;
import dev.distlock.spi.HandOverEvents;
import dev.distlock.spi.StoreEvents;
import org.jspecify.annotations.Nullable;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * How a {@link RedisLockStore} hears of releases: the channel {@code release.lua} publishes a lock's release on, and
 * the subscription that reads it ({@link ReleaseMessages}). One global channel by default
 * ({@link ReleaseSubscriber}, {@code PUBLISH}); on Redis Cluster with {@code distlock.cluster.sharded-pubsub} one
 * channel per hash slot ({@link ShardedReleaseSubscriber}, {@code SPUBLISH}), so that a release's message stays in
 * its shard instead of crossing the cluster bus to every node.
 */
interface ReleaseNotifications extends AutoCloseable {

    /**
     * @param connectionFactory the store's connection factory
     * @param lettuce whether it is Lettuce's
     * @param config the store's settings
     * @param handOverMillis how long a hand-over lasts without its confirmation
     * @param handOverUsable whether a hand-over of the named lock may be acted on before its confirmation
     * @return the notifications the settings ask for
     * @throws InvalidPropertyException when sharded pub/sub is asked for without Redis Cluster on Lettuce
     */
    static ReleaseNotifications of(RedisConnectionFactory connectionFactory, boolean lettuce, RedisLockConfig config,
            long handOverMillis, Predicate<String> handOverUsable) {
        if (!config.shardedPubsub()) {
            return new ReleaseSubscriber(connectionFactory, LockKeys.channel(config.keyPrefix()), handOverMillis,
                    handOverUsable);
        }
        if (!lettuce || !((LettuceConnectionFactory) connectionFactory).isClusterAware()) {
            throw new InvalidPropertyException("distlock.cluster.sharded-pubsub", "needs Redis Cluster 7 or later "
                    + "through Lettuce (spring.data.redis.cluster.nodes, Spring Boot's default client); the "
                    + "connection factory is a " + connectionFactory.getClass().getSimpleName()
                    + (lettuce ? " for one server" : ""));
        }
        return new ShardedReleaseSubscriber((LettuceConnectionFactory) connectionFactory,
                new ShardChannels(config.keyPrefix()), handOverMillis, handOverUsable, config.commandTimeout());
    }

    /**
     * @param keys the keys of a lock
     * @return the channel its release publishes on ({@code release.lua}'s {@code ARGV[2]}; a channel with a hash
     *         tag is published with {@code SPUBLISH})
     */
    byte[] channel(LockKeys keys);

    /**
     * Checks that the Redis user may use the release channels, with a message naming the missing ACL rule. Redis
     * being unreachable does not fail: locking then fails closed per call until it is back.
     *
     * @param runner the store's connection
     * @param timeout the most to wait, once, at start-up
     * @throws IllegalStateException when the user lacks the permission
     */
    void checkPermission(RedisRunner runner, Duration timeout);

    /**
     * Subscribes now, or keeps trying in the background until it can.
     *
     * @param events where releases go when nobody listens for hand-overs
     * @param handOvers where hand-overs go, or {@code null} when the engine did not start them (a quorum's node)
     */
    void start(StoreEvents events, @Nullable HandOverEvents handOvers);

    /** @return whether every release channel is subscribed */
    boolean isSubscribed();

    @Override
    void close();
}
