package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.function.Consumer;

import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The one pub/sub subscription of the application: {@code release.lua} publishes the name of a released lock on
 * {@code <prefix>:released} when someone waits for it, and this wakes the local waiter of that name. Spring Data
 * Redis' listener container re-subscribes by itself after Redis comes back; waiters re-check on a timer meanwhile.
 */
final class ReleaseSubscriber {

    private static final Logger log = LoggerFactory.getLogger(ReleaseSubscriber.class);

    private static final Duration RETRY = Duration.ofSeconds(1);

    private final RedisMessageListenerContainer container = new RedisMessageListenerContainer();

    ReleaseSubscriber(RedisConnectionFactory connectionFactory, byte[] channel, Consumer<String> onRelease) {
        container.setConnectionFactory(connectionFactory);
        // Dispatch on the Redis I/O thread: the work is a map lookup and an unpark, cheaper than a thread hop.
        container.setTaskExecutor(Runnable::run);
        container.addMessageListener(
                (message, pattern) -> onRelease.accept(new String(message.getBody(), StandardCharsets.UTF_8)),
                new ChannelTopic(new String(channel, StandardCharsets.UTF_8)));
        container.afterPropertiesSet();
    }

    /**
     * Subscribes; when Redis is not reachable yet, retries on the scheduler until it is, so the application starts
     * (and fails closed per lock call) while Redis is down.
     */
    void start(ScheduledExecutorService scheduler) {
        try {
            container.start();
        }
        catch (RuntimeException ex) {
            log.warn("Could not subscribe to lock release notifications yet ({}); retrying in {} ms", ex.getMessage(),
                    RETRY.toMillis());
            try {
                scheduler.schedule(() -> start(scheduler), RETRY.toMillis(), TimeUnit.MILLISECONDS);
            }
            catch (RejectedExecutionException shutDown) {
                // the lock service is shutting down
            }
        }
    }

    void stop() {
        try {
            container.destroy();
        }
        catch (Exception ex) {
            // shutting down: nothing to do
        }
    }
}
