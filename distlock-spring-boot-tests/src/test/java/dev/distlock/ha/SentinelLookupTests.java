package dev.distlock.ha;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import java.util.stream.Collectors;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockUnavailableException;
import dev.distlock.embedded.RedisAddress;
import dev.distlock.embedded.RedisSentinelTopology;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisTopologies;
import dev.distlock.test.support.LockHistory;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * A Sentinel that does not answer (frozen: the kernel accepts the connection, the handshake waits) makes every
 * master lookup slow when it is listed first, as Lettuce asks the Sentinels in list order. The lock connection must
 * open anyway — what matters is that the node reached is the master the Sentinels name, not how long asking took —
 * just as it does when that Sentinel is listed last (the control).
 */
class SentinelLookupTests {

    private static final Logger log = LoggerFactory.getLogger(SentinelLookupTests.class);

    static RedisSentinelTopology topology;

    private final LockHistory history = new LockHistory();

    @BeforeAll
    static void startTopology() {
        topology = RedisTopologies.sharedSentinel();
    }

    @AfterEach
    void heal() {
        topology.heal();
    }

    /**
     * A node ({@code distlock.command-timeout=1s}) with the Sentinels in this order, and
     * {@code spring.data.redis.timeout=2s} (the other HA tests' 5 s): each lookup that asks the frozen Sentinel first
     * waits that long for it.
     */
    private ApplicationContextRunner node(List<RedisAddress> sentinels) {
        return HaApplications.sentinelNode(history, topology).withPropertyValues("distlock.key-prefix=lookup",
                "spring.data.redis.timeout=2s",
                "spring.data.redis.sentinel.nodes="
                        + sentinels.stream().map(RedisAddress::toString).collect(Collectors.joining(",")));
    }

    /** Retries {@code tryLock(wait 0)} until it gets the lock; returns after how long, failing after 20 s. */
    private long millisUntilAcquired(LockService node, String name) {
        AtomicInteger unavailable = new AtomicInteger();
        AtomicReference<@Nullable LockUnavailableException> last = new AtomicReference<>();
        long started = System.nanoTime();
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(50)).untilAsserted(() -> {
                    Optional<LockHandle> got;
                    try {
                        got = node.tryLock(name, LockOptions.defaults().withWaitTime(Duration.ZERO));
                    }
                    catch (LockUnavailableException ex) {
                        unavailable.incrementAndGet();
                        last.set(ex);
                        got = Optional.empty();
                    }
                    assertThat(got).as("lock '%s' after %d LockUnavailableException, last: %s", name,
                            unavailable.get(), last.get()).isPresent();
                    got.get().unlock();
                });
        long millis = (System.nanoTime() - started) / 1_000_000;
        log.info("Sentinel lookup: acquired '{}' after {} ms, {} LockUnavailableException before", name, millis,
                unavailable.get());
        return millis;
    }

    @Test
    void theFirstListedSentinelFrozenDoesNotKeepTheLockConnectionClosed() {
        RedisServerProcess first = topology.sentinelProcesses().get(0);
        first.pause();
        node(topology.sentinels()).run(context -> {
            // Each lookup spends spring.data.redis.timeout (2 s) on the frozen Sentinel before asking the next one.
            assertThat(millisUntilAcquired(context.getBean(LockService.class), "first-frozen")).isLessThan(10_000);
        });
    }

    @Test
    void theLastListedSentinelFrozenControl() {
        List<RedisAddress> sentinels = new ArrayList<>(topology.sentinels());
        sentinels.add(sentinels.remove(0)); // the frozen one last
        topology.sentinelProcesses().get(0).pause();
        node(sentinels).run(context -> {
            assertThat(millisUntilAcquired(context.getBean(LockService.class), "last-frozen")).isLessThan(5_000);
        });
    }
}
