package dev.distlock.autoconfigure;

import java.time.Duration;

import dev.distlock.core.StoreLockService;

import org.springframework.context.SmartLifecycle;
import org.springframework.core.task.SimpleAsyncTaskExecutor;

/**
 * Graceful shutdown of the lock service. When the context stops, new acquisitions are refused and the work running
 * under locks may finish, for most of Spring's shutdown-phase timeout
 * ({@code spring.lifecycle.timeout-per-shutdown-phase}, 30 s by default); then the locks still held are released
 * and the store is closed, all within the phase.
 * <p>
 * The phase stops this after the web server has drained its requests and before the Redis connection factory
 * (phase 0) closes the connections the releases need.
 */
final class DistlockLifecycle implements SmartLifecycle {

    /** After the web server's graceful shutdown and stop (DEFAULT_PHASE - 1024 and - 2048). */
    static final int PHASE = SmartLifecycle.DEFAULT_PHASE - 4096;

    private final StoreLockService lockService;

    private final Duration grace;

    private volatile boolean running = true;

    /**
     * @param lockService the lock service
     * @param phaseTimeout Spring's shutdown-phase timeout; work may run for four fifths of it, the rest is left
     *        for the releases
     */
    DistlockLifecycle(StoreLockService lockService, Duration phaseTimeout) {
        this.lockService = lockService;
        this.grace = phaseTimeout.multipliedBy(4).dividedBy(5);
    }

    @Override
    public void start() {
        running = true;
    }

    @Override
    public void stop() {
        lockService.shutdown(grace);
        running = false;
    }

    @Override
    public void stop(Runnable callback) {
        SimpleAsyncTaskExecutor executor = new SimpleAsyncTaskExecutor("distlock-shutdown-");
        executor.setDaemon(true); // should Spring stop waiting first, the JVM must still exit
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
