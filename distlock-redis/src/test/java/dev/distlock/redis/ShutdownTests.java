package dev.distlock.redis;

import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockUnavailableException;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

/**
 * Shutdown with threads of the same JVM queued for a held lock: from {@code awaitIdle}/{@code shutdown} on, a
 * release goes to Redis instead of handing the lease to a queued thread (that lease would never be released: the
 * store closes), the queued threads fail with {@link LockUnavailableException}, and no key is left behind.
 */
class ShutdownTests {

    @RegisterExtension
    static RedisServersExtension redisServers = new RedisServersExtension();

    static RedisServerProcess server;

    private final LockNodes nodes = new LockNodes();

    @BeforeAll
    static void startRedis() {
        server = redisServers.start();
    }

    @AfterEach
    void close() {
        nodes.close();
        server.call("FLUSHALL");
    }

    /** A node whose streaks of local hand-offs are long enough to never end on their own in a test. */
    private StoreLockService node() {
        return nodes.node(server, LockConfig.defaults().withWaitTime(Duration.ofSeconds(30))
                .withLocalHandOff(100, Duration.ofMinutes(1)), LockNodes.redisConfig("shutdown"));
    }

    private static boolean isFree(StoreLockService otherNode, String name) {
        Optional<LockHandle> handle = otherNode.tryLock(name, LockOptions.defaults().withWaitTime(Duration.ZERO));
        handle.ifPresent(LockHandle::unlock);
        return handle.isPresent();
    }

    /** A thread of {@code node} that waits for the lock; returns once it is parked in the wait. */
    private static CompletableFuture<LockHandle> queuedThread(StoreLockService node, String name) {
        AtomicReference<Thread> waiter = new AtomicReference<>();
        CompletableFuture<LockHandle> queued = CompletableFuture.supplyAsync(() -> {
            waiter.set(Thread.currentThread());
            return node.lock(name);
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> waiter.get() != null
                && waiter.get().getState() == Thread.State.TIMED_WAITING);
        return queued;
    }

    /** The locks' keys: not the holder key of the instance still running ({@link HolderKeys}). */
    private static List<?> lockKeys() {
        return (List<?>) server.call("KEYS", "*:{*");
    }

    private static void assertShutDownFailure(CompletableFuture<LockHandle> queued) {
        assertThatThrownBy(() -> queued.get(5, TimeUnit.SECONDS)).isInstanceOf(ExecutionException.class)
                .cause().isInstanceOf(LockUnavailableException.class).hasMessageContaining("shutting down");
    }

    @Test
    void aReleaseAtShutdownGoesToRedisInsteadOfToAQueuedThread() {
        StoreLockService node = node();
        StoreLockService other = node();
        LockHandle held = CompletableFuture.supplyAsync(() -> node.lock("x")).join();
        CompletableFuture<LockHandle> queued = queuedThread(node, "x");

        node.shutdown(Duration.ZERO);

        assertShutDownFailure(queued);
        assertThat(held.isHeld()).isFalse();
        assertThat(node.heldLocks()).isEmpty();
        assertThat(isFree(other, "x")).as("taken at once by another node").isTrue();
        assertThat(lockKeys()).as("no lock key left").isEmpty();
    }

    @Test
    void aHolderThatFinishesDuringAwaitIdleReleasesToRedisAndTheQueuedThreadFails() throws Exception {
        StoreLockService node = node();
        StoreLockService other = node();
        LockHandle held = CompletableFuture.supplyAsync(() -> node.lock("y")).join();
        CompletableFuture<LockHandle> queued = queuedThread(node, "y");
        CompletableFuture<Boolean> idle = CompletableFuture.supplyAsync(() -> node.awaitIdle(Duration.ofSeconds(10)));
        await().atMost(Duration.ofSeconds(5)).untilAsserted(() -> assertThatThrownBy(() -> node.tryLock("z",
                LockOptions.defaults())).isInstanceOf(LockUnavailableException.class));

        held.unlock(); // the locked work ends during the graceful shutdown

        assertShutDownFailure(queued);
        assertThat(idle.get(5, TimeUnit.SECONDS)).as("idle").isTrue();
        assertThat(isFree(other, "y")).as("taken at once by another node").isTrue();
        assertThat(lockKeys()).as("no lock key left").isEmpty();
        node.shutdown(Duration.ZERO);
    }
}
