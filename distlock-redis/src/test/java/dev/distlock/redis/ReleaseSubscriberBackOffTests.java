package dev.distlock.redis;

import java.time.Duration;
import java.util.List;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.spi.StoreEvents;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

import org.springframework.data.redis.connection.RedisStandaloneConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceClientConfiguration;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * With Redis down at start-up the release subscriber retries with a growing delay and says so once: one WARN for the
 * outage, DEBUG for each retry, one INFO when it is subscribed after Redis came back; not a WARN a second. A real
 * Redis, stopped and started again on the same port; the log events are counted.
 */
class ReleaseSubscriberBackOffTests {

    private static final StoreEvents NO_EVENTS = new StoreEvents() {
        @Override
        public void released(String name, @Nullable String next) {
        }

        @Override
        public void leaseLost(String ownerToken) {
        }
    };

    private final Logger logger = (Logger) LoggerFactory.getLogger(ReleaseSubscriber.class);

    private final ListAppender<ILoggingEvent> events = new ListAppender<>();

    private Level level;

    private RedisServerProcess server;

    private LettuceConnectionFactory factory;

    private ReleaseSubscriber subscriber;

    @BeforeEach
    void setUp() {
        level = logger.getLevel();
        logger.setLevel(Level.DEBUG);
        events.start();
        logger.addAppender(events);
        server = RedisServerProcess.startOnFreePort();
        server.stop();
        factory = new LettuceConnectionFactory(new RedisStandaloneConfiguration(server.host(), server.port()),
                LettuceClientConfiguration.builder().commandTimeout(Duration.ofSeconds(2)).build());
        factory.afterPropertiesSet();
        factory.start();
    }

    @AfterEach
    void tearDown() {
        if (subscriber != null) {
            subscriber.close();
        }
        factory.destroy();
        server.close();
        logger.detachAppender(events);
        logger.setLevel(level);
    }

    private List<ILoggingEvent> at(Level wanted) {
        return events.list.stream().filter(event -> event.getLevel() == wanted).toList();
    }

    @Test
    void anOutageAtStartUpIsOneWarnThenRetriesWithBackOffThenOneInfo() {
        // 100 ms doubling up to 400 ms: the shape of 1 s doubling up to 30 s, in a test's time.
        subscriber = new ReleaseSubscriber(factory, LockKeys.channel("backoff"), 0, name -> true, 100, 400);
        long start = System.nanoTime();
        subscriber.start(NO_EVENTS, null);

        await().atMost(Duration.ofSeconds(20)).until(() -> at(Level.DEBUG).size() >= 4);
        Duration forFiveAttempts = Duration.ofNanos(System.nanoTime() - start);
        assertThat(subscriber.isSubscribed()).isFalse();
        assertThat(at(Level.WARN)).hasSize(1).first().satisfies(warn -> assertThat(warn.getFormattedMessage())
                .startsWith("Could not subscribe to lock release notifications ("));
        // Retries waited 100 + 200 + 400 + 400 ms at least (a fixed 100 ms would take 400 ms).
        assertThat(forFiveAttempts).isGreaterThanOrEqualTo(Duration.ofMillis(1100));
        assertThat(at(Level.DEBUG).get(3).getFormattedMessage()).endsWith("retrying in 400 ms");

        server.start();
        await().atMost(Duration.ofSeconds(20)).until(subscriber::isSubscribed);

        assertThat(at(Level.WARN)).hasSize(1);
        assertThat(at(Level.INFO)).hasSize(1).first().satisfies(info -> assertThat(info.getFormattedMessage())
                .startsWith("Subscribed to lock release notifications on 'backoff:released' after"));
    }
}
