package dev.distlock.ha;

import java.time.Duration;
import java.util.Optional;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.embedded.RedisSentinelTopology;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisTopologies;
import dev.distlock.test.support.LockHistory;
import dev.distlock.test.support.LockLoad;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Locking on a real Sentinel topology (a master, two replicas, three Sentinels), configured only through
 * {@code spring.data.redis.sentinel.*}: killing or freezing the master while two nodes lock in a loop. Locking fails
 * closed during the outage, works again after the failover without a restart, tokens keep increasing, and any
 * overlap caused by a lock write lost in the failover is reported as a lost lease.
 */
class SentinelFailoverTests {

    private static final Logger log = LoggerFactory.getLogger(SentinelFailoverTests.class);

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

    ApplicationContextRunner runner(String... properties) {
        return HaApplications.sentinelNode(history, topology)
                .withPropertyValues("distlock.key-prefix=ha", "distlock.lease-time=3s", "distlock.wait-time=1s")
                .withPropertyValues(properties);
    }

    @Test
    void killingTheMasterFailsClosedThenLockingWorksAgainWithIncreasingTokens() throws Exception {
        runner().run(a -> runner().run(b -> {
            LockService nodeA = a.getBean(LockService.class);
            LockService nodeB = b.getBean(LockService.class);
            LockLoad.warmUp(nodeA);
            LockLoad.warmUp(nodeB);
            LockHandle longHeld = nodeA.lock("long-held");
            try (LockLoad load = new LockLoad(history, "loop", 2, nodeA, nodeB)) {
                await().atMost(Duration.ofSeconds(10)).until(() -> load.grants() >= 20);
                int before = load.grants();
                long killed = System.nanoTime();
                RedisServerProcess old = topology.killMaster();
                topology.awaitFailover(Duration.ofSeconds(30));
                await().atMost(Duration.ofSeconds(30)).until(() -> load.grants() >= before + 20);
                long recovered = load.lastGrantNanos();
                log.info("Sentinel kill of {}: locking worked again {} ms after the kill; {} acquires failed closed, "
                        + "{} timed out; {} grants, {} with a lost lease", old, (recovered - killed) / 1_000_000,
                        load.unavailable(), load.timeouts(), load.grants(), history.lostLeases());
            }
            // The lock held across the failover: still held (its write reached a replica) or reported lost.
            Optional<LockHandle> taken = nodeB.tryLock("long-held", LockOptions.defaults()
                    .withWaitTime(Duration.ofSeconds(5)));
            if (taken.isPresent()) {
                await().atMost(Duration.ofSeconds(10)).until(() -> !longHeld.isHeld());
                taken.get().unlock();
            }
            else {
                assertThat(longHeld.isHeld()).isTrue();
            }
            longHeld.unlock();
        }));
        history.assertConsistent();
    }

    @Test
    void freezingTheMasterPastALeaseNeverGivesTwoUnreportedHolders() throws Exception {
        runner().run(a -> runner().run(b -> {
            LockService nodeA = a.getBean(LockService.class);
            LockService nodeB = b.getBean(LockService.class);
            try (LockLoad load = new LockLoad(history, "frozen", 2, nodeA, nodeB)) {
                await().atMost(Duration.ofSeconds(10)).until(() -> load.grants() >= 20);
                int before = load.grants();
                long paused = System.nanoTime();
                RedisServerProcess old = topology.pauseMaster();
                topology.awaitFailover(Duration.ofSeconds(30));
                await().atMost(Duration.ofSeconds(30)).until(() -> load.grants() >= before + 20);
                long recovered = load.lastGrantNanos();
                topology.resume(); // the old master comes back and is demoted to a replica
                log.info("Sentinel freeze of {}: locking worked again {} ms after the freeze; {} acquires failed "
                        + "closed, {} timed out", old, (recovered - paused) / 1_000_000, load.unavailable(),
                        load.timeouts());
                int resumed = load.grants();
                await().atMost(Duration.ofSeconds(30)).until(() -> load.grants() >= resumed + 20);
            }
        }));
        history.assertConsistent();
    }
}
