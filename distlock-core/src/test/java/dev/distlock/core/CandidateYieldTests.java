package dev.distlock.core;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.locks.LockSupport;

import dev.distlock.LockHandle;
import dev.distlock.leader.Leadership;
import dev.distlock.leader.LeadershipListener;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.quorum.QuorumConfig;
import dev.distlock.quorum.QuorumLockStore;
import dev.distlock.spi.LockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.awaitility.Awaitility.await;

/**
 * A yield lets another candidate lead, also on a store that wakes no waiter (a quorum store: its waiters poll), and
 * also when the campaign's thread has a wake-up pending as it starts its pause: its listener is called on that thread,
 * and a wake-up meant for the leading loop (a yield arriving as the loop woke on its own) can be left over. The
 * listener here leaves one on purpose, so the test does not depend on that timing.
 */
class CandidateYieldTests {

    private final List<InMemoryLockStore> nodes = List.of(new InMemoryLockStore(), new InMemoryLockStore(),
            new InMemoryLockStore());

    private StoreLockService first;

    private StoreLockService second;

    @AfterEach
    void close() {
        second.close();
        first.close();
    }

    private StoreLockService candidate() {
        List<LockStore> connections = nodes.stream().map(InMemoryLockStore::connect).toList();
        StoreLockService service = new StoreLockService(
                new QuorumLockStore(new QuorumConfig(connections, Duration.ofSeconds(2))), LockConfig.defaults(),
                LockListener.NONE);
        service.start();
        return service;
    }

    @Test
    void aYieldPausesTheWholePauseEvenWithAWakeUpPending() {
        first = candidate();
        second = candidate();
        Leadership leading = first.campaign("jobs", new LeadershipListener() {
            @Override
            public void granted(String group, LockHandle lease) {
            }

            @Override
            public void revoked(String group) {
                LockSupport.unpark(Thread.currentThread()); // a wake-up left over for the pause
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(leading::isLeader);
        Leadership waiting = second.campaign("jobs", new LeadershipListener() {
            @Override
            public void granted(String group, LockHandle lease) {
            }

            @Override
            public void revoked(String group) {
            }
        });
        leading.yieldLeadership();
        await("the other candidate leads after the yield").atMost(Duration.ofSeconds(10)).until(waiting::isLeader);
        waiting.close();
        leading.close();
    }
}
