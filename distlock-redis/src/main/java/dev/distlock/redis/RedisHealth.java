package dev.distlock.redis;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.TimeUnit;

import dev.distlock.spi.StoreHealth;

/**
 * The Redis store's health: a {@code PING} on the lock connection, and whether release notifications are
 * subscribed. The engine bounds the wait.
 */
final class RedisHealth {

    private RedisHealth() {
    }

    static CompletionStage<StoreHealth> check(RedisRunner runner, ReleaseNotifications subscriber) {
        long start = System.nanoTime();
        return runner.ping().handle((pong, error) -> {
            if (error != null) {
                Throwable cause = error.getCause() != null ? error.getCause() : error;
                return new StoreHealth(false, Map.of("redis", "DOWN", "error", String.valueOf(cause.getMessage())));
            }
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("redis", "UP");
            details.put("ping", pong);
            details.put("pingMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            details.put("releaseNotifications", subscriber.isSubscribed() ? "subscribed" : "not subscribed");
            return new StoreHealth(true, details);
        });
    }
}
