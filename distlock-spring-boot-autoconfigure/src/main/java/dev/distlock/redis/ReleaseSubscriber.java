package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.util.function.Consumer;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;

/**
 * The one pub/sub subscription of the application: {@code release.lua} publishes the name of a released lock on
 * {@code <prefix>:released} when someone waits for it, and this wakes the local waiter of that name. Spring Data
 * Redis' listener container re-subscribes by itself after Redis comes back; waiters re-check on a timer meanwhile.
 */
final class ReleaseSubscriber {

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

    void start() {
        container.start();
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
