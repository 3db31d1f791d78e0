package dev.distlock.redis;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

import dev.distlock.spi.StoreHealth;

/**
 * The Redis store's health: a {@code PING} on the lock connection within the timeout, and whether release
 * notifications are subscribed.
 */
final class RedisHealth {

    private RedisHealth() {
    }

    static StoreHealth check(RedisRunner runner, ReleaseSubscriber subscriber, Duration timeout) {
        long start = System.nanoTime();
        try {
            String pong = runner.ping().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            Map<String, Object> details = new LinkedHashMap<>();
            details.put("redis", "UP");
            details.put("ping", pong);
            details.put("pingMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            details.put("releaseNotifications", subscriber.isSubscribed() ? "subscribed" : "not subscribed");
            return new StoreHealth(true, details);
        }
        catch (TimeoutException ex) {
            return new StoreHealth(false, Map.of("redis", "DOWN", "error", "Redis did not answer PING within "
                    + timeout));
        }
        catch (ExecutionException ex) {
            Throwable cause = ex.getCause() != null ? ex.getCause() : ex;
            return new StoreHealth(false, Map.of("redis", "DOWN", "error", String.valueOf(cause.getMessage())));
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            return new StoreHealth(false, Map.of("redis", "UNKNOWN", "error", "interrupted"));
        }
    }
}
