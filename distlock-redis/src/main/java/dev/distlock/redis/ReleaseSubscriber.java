package dev.distlock.redis;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.function.Predicate;

import dev.distlock.spi.HandOverEvents;
import dev.distlock.spi.StoreEvents;
import org.jspecify.annotations.Nullable;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisConnectionFactory;
import org.springframework.data.redis.listener.ChannelTopic;
import org.springframework.data.redis.listener.RedisMessageListenerContainer;
import org.springframework.util.backoff.ExponentialBackOff;

/**
 * The one pub/sub subscription of the application: when a release hands a lock to a waiter, {@code release.lua}
 * publishes the lock name, that waiter's owner token and its fencing token on {@code <prefix>:released}, and this
 * tells the engine ({@link HandOverEvents#handedOver}), which lets that waiter start and wakes the others of the name
 * (the messages: {@link ReleaseMessages}).
 * <p>
 * Once subscribed, the client re-subscribes by itself after Redis comes back. Until the first subscription
 * succeeds (Redis down at start-up), a daemon thread retries with a fresh container (a container that failed to
 * start counts as started and would never try again), backing off from 1 s, doubling up to 30 s. An outage is
 * logged once: a WARN at the first failure, DEBUG for the retries, an INFO when subscribed at last. Waiters do not
 * depend on it meanwhile: they re-check the lock on their bounded fallback.
 */
final class ReleaseSubscriber implements ReleaseNotifications {

    private static final Logger log = LoggerFactory.getLogger(ReleaseSubscriber.class);

    /** First retry delay; doubled after each failure up to {@link #MAX_RETRY_MILLIS}. */
    private static final long FIRST_RETRY_MILLIS = 1000;

    private static final long MAX_RETRY_MILLIS = 30_000;

    /** How long closing waits for the subscription's connection to close. */
    static final Duration CLOSE_WAIT = Duration.ofSeconds(2);

    private final RedisConnectionFactory connectionFactory;

    private final String channel;

    private final byte[] channelBytes;

    private final Duration handOverWindow;

    /** Whether a hand-over of the named lock may be acted on before its confirmation (else it is a wake-up). */
    private final Predicate<String> handOverUsable;

    private final ScheduledExecutorService retries = Executors.newSingleThreadScheduledExecutor(runnable -> {
        Thread thread = new Thread(runnable, "distlock-redis-subscribe");
        thread.setDaemon(true);
        return thread;
    });

    private volatile @Nullable RedisMessageListenerContainer container;


    private volatile boolean closed;

    private final long firstRetryMillis;

    private final long maxRetryMillis;

    // Only the retry thread reads and writes these.
    private long nextRetryMillis;

    private int failedAttempts;

    ReleaseSubscriber(RedisConnectionFactory connectionFactory, byte[] channel, long handOverMillis,
            Predicate<String> handOverUsable) {
        this(connectionFactory, channel, handOverMillis, handOverUsable, FIRST_RETRY_MILLIS, MAX_RETRY_MILLIS);
    }

    /** With another back-off, for tests that cannot wait 30 s. */
    ReleaseSubscriber(RedisConnectionFactory connectionFactory, byte[] channel, long handOverMillis,
            Predicate<String> handOverUsable, long firstRetryMillis, long maxRetryMillis) {
        this.connectionFactory = connectionFactory;
        this.channel = new String(channel, StandardCharsets.UTF_8);
        this.channelBytes = channel.clone();
        this.handOverWindow = Duration.ofMillis(handOverMillis);
        this.handOverUsable = handOverUsable;
        this.firstRetryMillis = firstRetryMillis;
        this.maxRetryMillis = maxRetryMillis;
        this.nextRetryMillis = firstRetryMillis;
    }

    /** Every lock's release publishes on the one channel. */
    @Override
    public byte[] channel(LockKeys keys) {
        return channelBytes;
    }

    /** Waits at most the command timeout, once at start-up. */
    @Override
    public void checkPermission(RedisRunner runner, Duration timeout) {
        String channelName = channel;
        Throwable failure = runner.publish(channelBytes, new byte[0])
                .handle((receivers, error) -> error)
                .completeOnTimeout(new TimeoutException(), timeout.toNanos(), TimeUnit.NANOSECONDS)
                .join(); // never fails: the failure is the value
        if (failure == null) {
            return;
        }
        Throwable cause = failure.getCause() != null ? failure.getCause() : failure;
        if (failure instanceof TimeoutException) {
            log.warn("Could not check the lock release channel permission within distlock.command-timeout");
        }
        else if (String.valueOf(cause.getMessage()).contains("NOPERM")) {
            throw new IllegalStateException("The Redis user configured in spring.data.redis.* may not publish "
                    + "or subscribe to the lock release channel '" + channelName + "' (" + cause.getMessage()
                    + "); grant it with the ACL rule '&" + channelName + "' (or 'allchannels')", cause);
        }
        else {
            log.warn("Could not check the lock release channel permission, Redis is not reachable: {}",
                    cause.getMessage());
        }
    }

    @Override
    public void start(StoreEvents events, @Nullable HandOverEvents handOvers) {
        ReleaseMessages messages = new ReleaseMessages(events, handOvers, handOverUsable, handOverWindow);
        retries.execute(() -> subscribe(messages));
    }

    @Override
    public boolean isSubscribed() {
        RedisMessageListenerContainer current = container;
        return current != null && current.isListening();
    }

    private void subscribe(ReleaseMessages messages) {
        if (closed) {
            return;
        }
        RedisMessageListenerContainer next = newContainer(messages);
        try {
            next.start();
            if (next.isListening()) {
                container = next;
                if (closed) {
                    destroy(next, CLOSE_WAIT);
                }
                retries.shutdown(); // from now on the client re-subscribes by itself
                if (failedAttempts > 0) {
                    log.info("Subscribed to lock release notifications on '{}' after {} failed attempt(s)", channel,
                            failedAttempts);
                }
                return;
            }
            failed("the subscription did not start");
        }
        catch (RuntimeException ex) {
            failed(String.valueOf(ex.getMessage()));
        }
        destroy(next, CLOSE_WAIT);
        if (!closed) {
            long delay = nextRetryMillis;
            nextRetryMillis = Math.min(delay * 2, maxRetryMillis);
            retries.schedule(() -> subscribe(messages), delay, TimeUnit.MILLISECONDS);
        }
    }

    /** Logs the first failure of an outage at WARN, the retries that follow at DEBUG. */
    private void failed(String reason) {
        failedAttempts++;
        if (failedAttempts == 1) {
            log.warn("Could not subscribe to lock release notifications ({}); retrying from {} ms up to every {} ms, "
                    + "and saying so at INFO once subscribed (waiters re-check locks on their own meanwhile)", reason,
                    firstRetryMillis, maxRetryMillis);
        }
        else {
            log.debug("Release notifications still not subscribed ({}, attempt {}); retrying in {} ms", reason,
                    failedAttempts, nextRetryMillis);
        }
    }

    private RedisMessageListenerContainer newContainer(ReleaseMessages messages) {
        RedisMessageListenerContainer next = new RedisMessageListenerContainer();
        next.setConnectionFactory(connectionFactory);
        // Should the subscription itself fail later, the container retries with the same back-off.
        ExponentialBackOff recovery = new ExponentialBackOff(firstRetryMillis, 2.0);
        recovery.setMaxInterval(maxRetryMillis);
        next.setRecoveryBackoff(recovery);
        // Dispatch on the client's thread: the work is a map lookup and an unpark, cheaper than a thread hop.
        next.setTaskExecutor(Runnable::run);
        next.addMessageListener((message, pattern) -> messages.dispatch(new String(message.getBody(),
                StandardCharsets.UTF_8)), new ChannelTopic(channel));
        next.afterPropertiesSet();
        return next;
    }

    /**
     * Closes a container on a thread of its own and waits for it at most {@code wait}: closing the subscription
     * joins the close of its connection without a timeout, and a connection that lost its server (a Sentinel's
     * master killed) may never answer, which hung a service's shutdown (fault campaign).
     *
     * @return whether the container closed in time
     */
    static boolean destroy(RedisMessageListenerContainer container, Duration wait) {
        Thread closer = new Thread(() -> {
            try {
                container.destroy();
            }
            catch (Exception ex) {
                log.debug("Could not close a release listener container", ex);
            }
        }, "distlock-redis-unsubscribe");
        closer.setDaemon(true);
        closer.start();
        try {
            closer.join(wait.toMillis());
        }
        catch (InterruptedException ex) {
            Thread.currentThread().interrupt();
        }
        if (closer.isAlive()) {
            log.warn("The subscription to lock release notifications did not close within {} ms (its connection did "
                    + "not answer); going on without it", wait.toMillis());
            return false;
        }
        return true;
    }

    @Override
    public void close() {
        closed = true;
        retries.shutdownNow();
        RedisMessageListenerContainer current = container;
        if (current != null) {
            destroy(current, CLOSE_WAIT);
        }
    }
}
