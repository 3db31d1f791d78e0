package dev.distlock.redis;

import java.net.SocketAddress;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Executors;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

import dev.distlock.InvalidPropertyException;
import dev.distlock.spi.HandOverEvents;
import dev.distlock.spi.StoreEvents;
import io.lettuce.core.RedisChannelHandler;
import io.lettuce.core.RedisConnectionStateListener;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.SlotHash;
import io.lettuce.core.cluster.models.partitions.RedisClusterNode;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubAdapter;
import io.lettuce.core.cluster.pubsub.RedisClusterPubSubListener;
import io.lettuce.core.cluster.pubsub.StatefulRedisClusterPubSubConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;
import io.lettuce.core.pubsub.api.async.RedisPubSubAsyncCommands;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

/**
 * Release notifications by sharded pub/sub on Redis Cluster 7+ ({@code distlock.cluster.sharded-pubsub}): each
 * master is subscribed ({@code SSUBSCRIBE}) to the channels of the slots it serves ({@link ShardChannels}), on a
 * pub/sub connection of its own that Lettuce opens through the application's cluster client, so a release's
 * message stays in its shard (master and replicas) where a {@code PUBLISH} crosses the cluster bus to every node.
 * <p>
 * One thread reconciles the subscriptions with the client's view of the cluster, at start and then every
 * {@value #RECONCILE_MILLIS} ms: a slot whose master changed (a failover, or a slot moved, which Redis also tells the
 * subscriber with an {@code sunsubscribe}) is subscribed again on its master of now; a subscription that fails is
 * tried again at the next round and asks the client to refresh its view of the cluster. A master's connection that
 * is lost and made again (a reset, a master that dropped it) has no subscriptions left: Lettuce re-subscribes every
 * channel of the connection in one {@code SSUBSCRIBE}, which Redis refuses with {@code CROSSSLOT} (Lettuce logs
 * "Re-subscribe failed" at WARN), so the connection's slots are subscribed again here, at once. Waiters do not depend
 * on any of it meanwhile: they re-check the lock on their bounded fallback.
 */
final class ShardedReleaseSubscriber implements ReleaseNotifications {

    private static final Logger log = LoggerFactory.getLogger(ShardedReleaseSubscriber.class);

    /** How often the subscriptions are compared with the cluster's slots. */
    static final long RECONCILE_MILLIS = 1000;

    private final LettuceConnectionFactory factory;

    private final ShardChannels channels;

    private final Duration handOverWindow;

    private final Predicate<String> handOverUsable;

    private final Duration timeout;

    private final SlotSubscriptions slots = new SlotSubscriptions();

    private final ScheduledExecutorService reconciler = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "distlock-redis-ssubscribe");
        thread.setDaemon(true);
        return thread;
    });

    private volatile @Nullable StatefulRedisClusterPubSubConnection<byte[], byte[]> connection;

    /** A master's connection made again lost its subscriptions: they are made again in a round at once. */
    private final RedisConnectionStateListener reconnections = new RedisConnectionStateListener() {
        @Override
        public void onRedisConnected(RedisChannelHandler<?, ?> reconnected, SocketAddress address) {
            Runnable now = round;
            if (slots.reconnected(reconnected) && now != null) {
                try {
                    reconciler.execute(now);
                }
                catch (RejectedExecutionException closed) {
                    // Closing: nothing to subscribe any more (and nothing may fail Lettuce's connection event).
                }
            }
        }
    };

    private volatile @Nullable Runnable round;

    // Only the reconciling thread reads and writes this.
    private boolean failing;

    ShardedReleaseSubscriber(LettuceConnectionFactory factory, ShardChannels channels, long handOverMillis,
            Predicate<String> handOverUsable, Duration timeout) {
        this.factory = factory;
        this.channels = channels;
        this.handOverWindow = Duration.ofMillis(handOverMillis);
        this.handOverUsable = handOverUsable;
        this.timeout = timeout;
    }

    @Override
    public byte[] channel(LockKeys keys) {
        return channels.of(keys);
    }

    /**
     * An {@code SPUBLISH} on slot 0's channel: Redis checks the ACL before it would redirect to the slot's master. A
     * server older than Redis 7 fails the start, since every contended release would fail on its {@code SPUBLISH}.
     */
    @Override
    public void checkPermission(RedisRunner runner, Duration wait) {
        Throwable failure;
        try (StatefulRedisClusterConnection<byte[], byte[]> check = client().connect(ByteArrayCodec.INSTANCE)) {
            failure = check.async().spublish(channels.ofSlot(0), new byte[0]).toCompletableFuture()
                    .handle((receivers, error) -> error)
                    .completeOnTimeout(null, wait.toNanos(), TimeUnit.NANOSECONDS).join();
        }
        catch (RuntimeException ex) {
            failure = ex;
        }
        Throwable cause = failure != null && failure.getCause() != null ? failure.getCause() : failure;
        if (cause != null && String.valueOf(cause.getMessage()).contains("NOPERM")) {
            throw new IllegalStateException("The Redis user configured in spring.data.redis.* may not publish or "
                    + "subscribe to the sharded lock release channels (" + cause.getMessage() + "); grant them with "
                    + "the ACL rule '" + channels.aclRule() + "' (or 'allchannels')", cause);
        }
        if (cause != null && String.valueOf(cause.getMessage()).contains("unknown command")) {
            // Every contended release would fail on its SPUBLISH: refuse to start instead.
            throw new InvalidPropertyException("distlock.cluster.sharded-pubsub", "needs Redis 7 or later, whose "
                    + "SPUBLISH the server does not know (" + cause.getMessage() + ")");
        }
        if (cause != null && !String.valueOf(cause.getMessage()).startsWith("MOVED")) {
            log.warn("Could not check the sharded lock release channels' permission: {}", cause.getMessage());
        }
    }

    @Override
    public void start(StoreEvents events, @Nullable HandOverEvents handOvers) {
        ReleaseMessages messages = new ReleaseMessages(events, handOvers, handOverUsable, handOverWindow);
        round = () -> reconcile(messages);
        client().addListener(reconnections);
        reconciler.scheduleWithFixedDelay(round, 0, RECONCILE_MILLIS, TimeUnit.MILLISECONDS);
    }

    /** Every slot subscribed on its master as the client sees the cluster now. */
    @Override
    public boolean isSubscribed() {
        try {
            return connection != null && slots.missing(client().getPartitions(), channels).isEmpty();
        }
        catch (RuntimeException ex) {
            return false;
        }
    }

    private RedisClusterClient client() {
        return (RedisClusterClient) factory.getRequiredNativeClient();
    }

    private void reconcile(ReleaseMessages messages) {
        Exception failure = null;
        try {
            StatefulRedisClusterPubSubConnection<byte[], byte[]> current = connection;
            if (current == null) {
                current = client().connectPubSub(ByteArrayCodec.INSTANCE);
                current.setNodeMessagePropagation(true);
                current.addListener(listener(messages));
                connection = current;
            }
            for (Map.Entry<String, List<byte[]>> node : slots.missing(client().getPartitions(), channels).entrySet()) {
                try {
                    subscribe(current, node.getKey(), node.getValue());
                }
                catch (ExecutionException | TimeoutException | RuntimeException ex) {
                    failure = ex; // the other masters' slots are subscribed all the same
                }
            }
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt(); // closing
            return;
        }
        catch (RuntimeException ex) {
            failure = ex;
        }
        if (failure != null) {
            failed(failure);
        }
        else if (failing) {
            failing = false;
            log.info("Subscribed to the sharded lock release channels of every slot again");
        }
    }

    /**
     * One {@code SSUBSCRIBE} per slot (Redis takes the channels of one slot per command), all sent at once on the
     * master's connection; the round waits for their answers at most the command timeout.
     */
    private void subscribe(StatefulRedisClusterPubSubConnection<byte[], byte[]> cluster, String nodeId,
            List<byte[]> slotChannels) throws InterruptedException, ExecutionException, TimeoutException {
        StatefulRedisPubSubConnection<byte[], byte[]> nodeConnection = cluster.getConnection(nodeId);
        slots.connection(nodeId, nodeConnection);
        RedisPubSubAsyncCommands<byte[], byte[]> node = nodeConnection.async();
        List<CompletableFuture<Void>> answers = new ArrayList<>(slotChannels.size());
        for (byte[] channel : slotChannels) {
            int slot = SlotHash.getSlot(channel);
            answers.add(node.ssubscribe(channel).toCompletableFuture()
                    .thenRun(() -> slots.subscribed(slot, nodeId)));
        }
        CompletableFuture.allOf(answers.toArray(CompletableFuture[]::new)).get(timeout.toMillis(),
                TimeUnit.MILLISECONDS);
    }

    /** Logs the first failure of an outage at WARN, the rounds that follow at DEBUG; asks for the cluster's view. */
    private void failed(Exception ex) {
        String reason = ex.getCause() != null ? String.valueOf(ex.getCause().getMessage()) : ex.getMessage();
        if (!failing) {
            failing = true;
            log.warn("Could not subscribe to every sharded lock release channel ({}); trying every {} ms and saying "
                    + "so at INFO once done (waiters re-check locks on their own meanwhile)", reason,
                    RECONCILE_MILLIS);
        }
        else {
            log.debug("Sharded release channels still not all subscribed: {}", reason);
        }
        try {
            client().refreshPartitionsAsync();
        }
        catch (RuntimeException refresh) {
            log.debug("Could not ask for the cluster's topology", refresh);
        }
    }

    private RedisClusterPubSubListener<byte[], byte[]> listener(ReleaseMessages messages) {
        return new RedisClusterPubSubAdapter<>() {

            @Override
            public void smessage(RedisClusterNode node, byte[] channel, byte[] message) {
                messages.dispatch(new String(message, StandardCharsets.UTF_8));
            }

            /** Redis unsubscribes a slot's channels when the slot moves: the next round subscribes its master. */
            @Override
            public void sunsubscribed(RedisClusterNode node, byte[] channel, long count) {
                slots.unsubscribed(SlotHash.getSlot(channel));
            }
        };
    }

    @Override
    public void close() {
        try {
            client().removeListener(reconnections);
        }
        catch (RuntimeException ex) {
            log.debug("Could not remove the reconnection listener (the client is closed)", ex);
        }
        reconciler.shutdownNow();
        try {
            reconciler.awaitTermination(ReleaseSubscriber.CLOSE_WAIT.toMillis(), TimeUnit.MILLISECONDS);
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        StatefulRedisClusterPubSubConnection<byte[], byte[]> current = connection;
        if (current != null) {
            current.closeAsync();
        }
    }
}
