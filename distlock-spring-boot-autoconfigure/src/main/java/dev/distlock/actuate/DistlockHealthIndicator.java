package dev.distlock.actuate;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LockException;
import dev.distlock.core.HeldLockRegistry;
import dev.distlock.core.WatchdogStatus;
import dev.distlock.spi.StoreHealth;
import org.jspecify.annotations.Nullable;

import org.springframework.boot.health.contributor.Health;
import org.springframework.boot.health.contributor.HealthIndicator;

/**
 * Health contributor {@code distlock}: UP when the lock store answers within the timeout and the lease watchdog
 * renews on time; DOWN with details otherwise.
 * <p>
 * The store check runs on its own daemon thread and is awaited for at most the timeout (by default
 * {@code distlock.command-timeout}), so a frozen store can never hang the health endpoint. At most one check is in
 * flight: a call that finds the previous one still running waits on it instead of piling up threads.
 */
public class DistlockHealthIndicator implements HealthIndicator {

    private final HeldLockRegistry registry;

    private final Duration timeout;

    private final AtomicReference<@Nullable CompletableFuture<StoreHealth>> inFlight = new AtomicReference<>();

    /**
     * @param registry the engine's view of held locks, watchdog and store
     * @param timeout how long to wait for the store
     */
    public DistlockHealthIndicator(HeldLockRegistry registry, Duration timeout) {
        if (registry == null) {
            throw new IllegalArgumentException("DistlockHealthIndicator: registry must not be null");
        }
        if (timeout == null || timeout.isNegative() || timeout.isZero()) {
            throw new IllegalArgumentException("DistlockHealthIndicator: timeout must be positive: " + timeout);
        }
        this.registry = registry;
        this.timeout = timeout;
    }

    @Override
    public Health health() {
        Map<String, Object> details = new LinkedHashMap<>();
        boolean storeUp = checkStore(details);
        boolean watchdogOnTime = checkWatchdog(details);
        Health.Builder builder = (storeUp && watchdogOnTime) ? Health.up() : Health.down();
        return builder.withDetails(details).build();
    }

    private boolean checkStore(Map<String, Object> details) {
        try {
            StoreHealth health = check().get(timeout.toNanos(), TimeUnit.NANOSECONDS);
            details.put("store", health.up() ? "UP" : "DOWN");
            details.putAll(health.details());
            return health.up();
        }
        catch (TimeoutException ex) {
            details.put("store", "DOWN");
            details.put("error", "the lock store did not answer within " + LockException.millis(timeout));
        }
        catch (ExecutionException ex) {
            Throwable cause = (ex.getCause() != null) ? ex.getCause() : ex;
            details.put("store", "DOWN");
            details.put("error", cause.getClass().getName() + ": " + cause.getMessage());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
            details.put("store", "UNKNOWN");
            details.put("error", "interrupted while checking the lock store");
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
                watchdog.put("lastRunAt", String.valueOf(status.lastRunAt()));
            }
            if (status.lastSuccessAt() != null) {
                watchdog.put("lastSuccessAt", String.valueOf(status.lastSuccessAt()));
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

    private CompletableFuture<StoreHealth> check() {
        while (true) {
            CompletableFuture<StoreHealth> current = inFlight.get();
            if (current != null && !current.isDone()) {
                return current;
            }
            CompletableFuture<StoreHealth> next = new CompletableFuture<>();
            if (inFlight.compareAndSet(current, next)) {
                Thread thread = new Thread(() -> run(next), "distlock-health");
                thread.setDaemon(true);
                thread.start();
                return next;
            }
        }
    }

    private void run(CompletableFuture<StoreHealth> result) {
        try {
            result.complete(registry.storeHealth(timeout));
        }
        catch (Throwable ex) {
            result.completeExceptionally(ex);
        }
    }
}
