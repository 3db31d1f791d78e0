package dev.distlock.autoconfigure;

import java.time.Duration;

import dev.distlock.core.StoreLockService;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Graceful shutdown of the lock service. When the context stops, new acquisitions are refused and the work running
 * under locks may finish — within Spring's shutdown-phase timeout ({@code spring.lifecycle.timeout-per-shutdown-phase})
 * — before the context closes the lock service, which then releases what is still held.
 * <p>
 * The phase stops this after the web server has drained its requests and before the Redis connection factory
 * (phase 0) closes the connections the releases need.
 */
final class DistlockLifecycle implements SmartLifecycle {

    /** After the web server's graceful shutdown and stop (DEFAULT_PHASE - 1024 and - 2048). */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    /** Longer than any phase timeout Spring would wait; Spring stops waiting on its own. */
    private static final Duration MAX_WAIT = Duration.ofHours(1);

    private final StoreLockService lockService;

    private volatile boolean running = true;

    DistlockLifecycle(StoreLockService lockService) {
        this.lockService = lockService;
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        lockService.awaitIdle(MAX_WAIT);
        running = false;
    }

    @Override
    public void stop(Runnable callback) {
        SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("distlock-shutdown-");
        executor.setDaemon(true); // Spring may stop waiting first; the JVM must still exit
        executor.execute(() -> {
            try {
                stop();
            }
            finally {
                callback.run();
            }
        });
    }

    @Override
    public boolean isRunning() {
        return running;
    }

    @Override
    public int getPhase() {
        return PHASE;
    }
}
