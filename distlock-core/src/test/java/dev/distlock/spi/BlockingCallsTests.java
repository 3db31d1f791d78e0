package dev.distlock.spi;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.atomic.AtomicBoolean;

import dev.distlock.LockUnavailableException;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The bounded pool for blocking clients: results on its threads, and fails closed when saturated or closed.
 */
class BlockingCallsTests {

    private static final Duration ANSWER = Duration.ofSeconds(5);

    @Test
    void answersOnAThreadOfItsOwn() {
        try (BlockingCalls calls = new BlockingCalls("test", 2, 0, Duration.ofSeconds(1), "hint")) {
            assertThat(calls.submit("name the thread", () -> Thread.currentThread().getName()))
                    .succeedsWithin(ANSWER).asString().startsWith("distlock-test-");
            CompletableFuture<Object> failed = calls.submit("fail", () -> {
                throw new IllegalStateException("boom");
            });
            assertThat(failed).failsWithin(ANSWER).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(IllegalStateException.class);
        }
    }

    @Test
    void failsClosedAtOnceWhenEveryThreadAndQueueSlotIsTaken() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        try (BlockingCalls calls = new BlockingCalls("test", 1, 1, Duration.ofSeconds(30), "the pool's property")) {
            CompletableFuture<Boolean> running = calls.submit("hang", () -> release.await(30,
                    java.util.concurrent.TimeUnit.SECONDS));
            CompletableFuture<String> queued = calls.submit("wait", () -> "queued");
            CompletableFuture<String> refused = calls.submit("acquire lock 'a'", () -> "never");
            assertThat(refused).isCompletedExceptionally();
            assertThat(refused).failsWithin(Duration.ZERO).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(LockUnavailableException.class)
                    .withMessageContaining("Could not acquire lock 'a'")
                    .withMessageContaining("1 thread busy and 1 queued calls waiting (the pool's property)");
            release.countDown();
            assertThat(running).succeedsWithin(ANSWER).isEqualTo(true);
            assertThat(queued).succeedsWithin(ANSWER).isEqualTo("queued");
        }
    }

    @Test
    void aCallQueuedLongerThanItsCallerWaitsIsDroppedAndACancelledOneNeverRuns() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        AtomicBoolean ran = new AtomicBoolean();
        Duration dropAfter = Duration.ofMillis(50);
        try (BlockingCalls calls = new BlockingCalls("test", 1, 2, dropAfter, "hint")) {
            CompletableFuture<Boolean> running = calls.submit("hang", () -> release.await(30,
                    java.util.concurrent.TimeUnit.SECONDS));
            long queuedAt = System.nanoTime();
            CompletableFuture<String> stale = calls.submit("renew", () -> "late");
            CompletableFuture<String> cancelled = calls.submit("cancel", () -> {
                ran.set(true);
                return "ran";
            });
            cancelled.cancel(false);
            // The stale call's caller has given up once the drop time has passed (what is under test is time).
            await().atMost(ANSWER).until(() -> System.nanoTime() - queuedAt > dropAfter.toNanos());
            release.countDown();
            assertThat(running).succeedsWithin(ANSWER);
            assertThat(stale).failsWithin(ANSWER).withThrowableOfType(ExecutionException.class)
                    .withCauseInstanceOf(LockUnavailableException.class).withMessageContaining("was dropped");
            // Queued behind the stale call on the one thread: once that is answered, this one has had its turn.
            calls.submit("after", () -> "after").get();
            assertThat(ran).isFalse();
        }
    }

    @Test
    void aClosedPoolRefusesCalls() {
        BlockingCalls calls = new BlockingCalls("test", 1, 0, Duration.ofSeconds(1), "hint");
        calls.close();
        assertThat(calls.submit("release lock 'a'", () -> "never")).failsWithin(Duration.ZERO)
                .withThrowableOfType(ExecutionException.class).withCauseInstanceOf(LockUnavailableException.class)
                .withMessageContaining("the lock store is closed");
    }
}
