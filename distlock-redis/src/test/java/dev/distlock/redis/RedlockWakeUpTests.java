package dev.distlock.redis;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.listener.LockListener;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.StoreEvents;
import dev.distlock.spi.Waiting;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Redlock's waiters poll (nobody queues on a quorum's node), yet a release wakes them: a master's refusal flags the
 * holder, its release publishes the name, and the quorum passes that on as a release that wakes every waiter of the
 * name. Without it a waiter on another instance learned of a release only at its next poll, 20 to 120 ms later,
 * while the releasing instance's own next thread took the lock at once, so a hot key stayed with one instance
 * (issue 40: shares 58 / 34 / 8).
 */
class RedlockWakeUpTests {

    private final List<RedisServerProcess> masters = new ArrayList<>();

    private final List<StoreLockService> nodes = new ArrayList<>();

    @AfterEach
    void stop() {
        nodes.forEach(StoreLockService::close);
        masters.forEach(RedisServerProcess::kill);
    }

    @Test
    void aReleaseWakesAWaiterOfAnotherInstance() throws Exception {
        for (int i = 0; i < 3; i++) {
            masters.add(RedisServerProcess.builder().start());
        }
        RedlockConfig config = new RedlockConfig(masters.stream()
                .map(master -> "redis://" + master.host() + ":" + master.port()).toList(), "wake",
                Duration.ofMillis(500));
        StoreLockService holding = node(RedlockStore.connect(config));
        List<String> heard = new CopyOnWriteArrayList<>();
        AtomicInteger refused = new AtomicInteger();
        StoreLockService waiting = node(new ForwardingLockStore(RedlockStore.connect(config)) {

            @Override
            public void start(StoreEvents events) {
                super.start(new StoreEvents() {

                    @Override
                    public void released(String name, @Nullable String next) {
                        heard.add(name);
                        events.released(name, next);
                    }

                    @Override
                    public void leaseLost(String ownerToken) {
                        events.leaseLost(ownerToken);
                    }
                });
            }

            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
                return super.attempt(request, waiting).thenApply(attempt -> {
                    if (attempt instanceof Attempt.Busy) {
                        refused.incrementAndGet();
                    }
                    return attempt;
                });
            }
        });

        LockHandle held = holding.lock("hot");
        CompletableFuture<Long> next = CompletableFuture.supplyAsync(() -> {
            try (LockHandle handle = waiting.tryLock("hot", LockOptions.defaults().withWaitTime(Duration.ofSeconds(
                    10))).orElseThrow()) {
                return handle.fencingToken();
            }
        });
        await().atMost(Duration.ofSeconds(10)).until(() -> refused.get() > 0);
        long released = held.fencingToken();
        held.unlock();

        assertThat(next.get()).as("the waiter's token").isGreaterThan(released);
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThat(heard)
                .as("releases the waiting instance heard").contains("hot"));
    }

    private StoreLockService node(dev.distlock.spi.LockStore store) {
        StoreLockService node = new StoreLockService(store, LockConfig.defaults(), LockListener.NONE);
        nodes.add(node);
        node.start();
        return node;
    }
}
