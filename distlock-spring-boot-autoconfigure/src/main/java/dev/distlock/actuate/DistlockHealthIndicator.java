package dev.distlock.actuate;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.spi.HeldLockRegistry;
import dev.distlock.spi.WatchdogStatus;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;
import org.springframework.data.redis.connection.RedisConnection;
import org.springframework.data.redis.connection.RedisConnectionFactory;

/**
 * Health contributor {@code distlock}: UP when Redis answers a PING within the timeout and the lease watchdog
 * renews on time; DOWN with details otherwise.
 * <p>
 * The PING runs on its own daemon thread and is awaited for at most the timeout (by default
 * {@code distlock.command-timeout}), because the client's own timeout may be much longer and a frozen Redis
 * would otherwise hang the health endpoint. At most one PING is in flight: a check that finds the previous one
 * still running waits on it instead of piling up threads.
 */
public class DistlockHealthIndicator implements HealthIndicator {

    private final RedisConnectionFactory connectionFactory;

    private final HeldLockRegistry registry;

    private final Duration timeout;

    private final AtomicReference<CompletableFuture<String>> inFlight = new AtomicReference<>();

    /**
     * @param connectionFactory the connection factory the locks use
     * @param registry the engine's view of held locks and watchdog
     * @param timeout how long to wait for PING
     */
    public DistlockHealthIndicator(RedisConnectionFactory connectionFactory, HeldLockRegistry registry,
            Duration timeout) {
        if (connectionFactory == null || registry == null) {
            throw new IllegalArgumentException(
                    "DistlockHealthIndicator: connectionFactory and registry must not be null");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("DistlockHealthIndicator: timeout must be positive: " + timeout);
        }
        this.connectionFactory = connectionFactory;
        this.registry = registry;
        this.timeout = timeout;
    }

    @Override
    public Health health() {
        Map<String, Object> details = new LinkedHashMap<>();
        boolean redisUp = checkRedis(details);
        boolean watchdogOnTime = checkWatchdog(details);
        Health.Builder builder = (redisUp && watchdogOnTime) ? Health.up() : Health.down();
        return builder.withDetails(details).build();
    }

    private boolean checkRedis(Map<String, Object> details) {
        long start = System.nanoTime();
        try {
            String pong = ping().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            details.put("redis", "UP");
            details.put("ping", pong);
            details.put("pingMillis", TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
            return true;
        }
        catch (TimeoutException ex) {
            details.put("redis", "DOWN");
            details.put("error", "Redis did not answer PING within " + timeout);
        }
        catch (ExecutionException ex) {
            Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
            details.put("redis", "DOWN");
            details.put("error", cause.getClass().getName() + ": " + cause.getMessage());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            details.put("redis", "UNKNOWN");
            details.put("error", "interrupted while waiting for PING");
        }
        return false;
    }

    private boolean checkWatchdog(Map<String, Object> details) {
        try {
            WatchdogStatus status = registry.watchdogStatus();
            Map<String, Object> watchdog = new LinkedHashMap<>();
            watchdog.put("running", status.running());
            watchdog.put("onTime", status.onTime());
            watchdog.put("renewedLeases", status.renewedLeases());
            watchdog.put("consecutiveFailures", status.consecutiveFailures());
            if (status.lastRunAt() != null) {
                watchdog.put("lastRunAt", status.lastRunAt().toString());
            }
            if (status.lastSuccessAt() != null) {
                watchdog.put("lastSuccessAt", status.lastSuccessAt().toString());
            }
            details.put("watchdog", watchdog);
            details.put("heldLocks", registry.heldLocks().size());
            return status.onTime();
        }
        catch (RuntimeException ex) {
            details.put("watchdog", "error: " + ex);
            return false;
        }
    }

    private CompletableFuture<String> ping() {
        while (true) {
            CompletableFuture<String> current = inFlight.get();
            if (current != null && !current.isDone()) {
                return current;
            }
            CompletableFuture<String> next = new CompletableFuture<>();
            if (inFlight.compareAndSet(current, next)) {
                Thread thread = new Thread(() -> doPing(next), "distlock-health-ping");
                thread.setDaemon(true);
                thread.start();
                return next;
            }
        }
    }

    private void doPing(CompletableFuture<String> result) {
        try (RedisConnection connection = connectionFactory.getConnection()) {
            result.complete(String.valueOf(connection.ping()));
        }
        catch (Throwable ex) {
            result.completeExceptionally(ex);
        }
    }
}
