package dev.distlock.benchmarks;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import dev.distlock.core.LockDefaults;
import io.lettuce.core.RedisClient;
import io.lettuce.core.pubsub.RedisPubSubAdapter;
import io.lettuce.core.pubsub.StatefulRedisPubSubConnection;

/**
 * A subscriber of distlock's release channel ({@code distlock:released}) in the harness, beside the instances' own
 * subscribers: it notes when each PUBLISH of a hand-off arrived, on the wall clock the sample's timeline uses, so
 * that workload K can split a cross-instance gap into "release returned → PUBLISH seen" and "PUBLISH seen → grant".
 * It sees the message as another subscriber on the same machine does, not the waiting instance itself: the split is
 * an estimate (see the report).
 */
final class ReleaseChannelTap implements AutoCloseable {

    private final RedisClient client;

    private final StatefulRedisPubSubConnection<String, String> connection;

    private final List<Long> received = new ArrayList<>();

    /**
     * Subscribes, and returns once the subscription is confirmed.
     *
     * @param target the run's Redis
     */
    ReleaseChannelTap(RedisTarget target) {
        client = RedisClient.create(target.uri());
        connection = client.connectPubSub();
        connection.addListener(new RedisPubSubAdapter<>() {
            @Override
            public void message(String channel, String message) {
                long now = micros();
                synchronized (received) {
                    received.add(now);
                }
            }
        });
        connection.sync().subscribe(LockDefaults.KEY_PREFIX + ":released");
    }

    /**
     * @return when each message arrived since the last call, µs since the epoch; forgets them
     */
    long[] drain() {
        synchronized (received) {
            long[] times = received.stream().mapToLong(Long::longValue).toArray();
            received.clear();
            return times;
        }
    }

    /** The wall clock in µs, as the sample's timeline reads it ({@code Instant.now()}). */
    static long micros() {
        Instant now = Instant.now();
        return now.getEpochSecond() * 1_000_000L + now.getNano() / 1_000;
    }

    @Override
    public void close() {
        connection.close();
        client.shutdown();
    }
}
