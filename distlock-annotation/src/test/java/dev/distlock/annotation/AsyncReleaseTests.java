package dev.distlock.annotation;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicReference;

import dev.distlock.LeaseLostException;
import dev.distlock.LockHandle;
import dev.distlock.MultiLockHandle;
import dev.distlock.OnLeaseLost;
import org.jspecify.annotations.Nullable;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The releases of locked {@code CompletableFuture} methods run on a bounded pool: a few threads and a bounded
 * queue, beyond which the thread that completes the stage runs the release itself (back-pressure). No release is
 * ever dropped, however many stages complete while the store is slow.
 */
class AsyncReleaseTests {

    @Test
    void releasesWhileTheStoreIsSlowUseAFewThreadsAQueueAndThenTheCompletingThread() throws Exception {
        Releases releases = new Releases();
        int total = AsyncRelease.RELEASE_THREADS + AsyncRelease.RELEASE_QUEUE + 1;
        List<CompletableFuture<@Nullable Object>> returned = new ArrayList<>();
        List<CompletableFuture<String>> stages = new ArrayList<>();
        for (int i = 0; i < total; i++) {
            CompletableFuture<String> stage = new CompletableFuture<>();
            stages.add(stage);
            returned.add(AsyncRelease.holdUntilComplete(stage, releases.handle("l" + i)));
        }
        // The store hangs: the pool's threads block in their releases, the next ones queue up.
        for (int i = 0; i < total - 1; i++) {
            stages.get(i).complete("v");
        }
        assertThat(releases.blocked.await(10, TimeUnit.SECONDS)).as("every pool thread is busy").isTrue();
        assertThat(releases.onCaller).hasValue(0);
        // Pool and queue are full: the thread completing the last stage runs its release itself.
        stages.get(total - 1).complete("v");
        assertThat(releases.onCaller).hasValue(1);
        assertThat(returned.get(total - 1)).isCompletedWithValue("v");

        releases.storeAnswers.countDown();
        CompletableFuture.allOf(returned.toArray(CompletableFuture[]::new)).get(30, TimeUnit.SECONDS);
        assertThat(releases.unlocked).as("no release was dropped").hasValue(total);
        assertThat(releases.maxConcurrent.get()).isLessThanOrEqualTo(AsyncRelease.RELEASE_THREADS + 1);
        assertThat(releases.maxConcurrentOnPool.get()).isEqualTo(AsyncRelease.RELEASE_THREADS);
    }

    /**
     * A lease lost with {@link OnLeaseLost#INTERRUPT}: the method's future is cancelled, which completes it and
     * starts its release on another thread, and that release completes the returned future before the thread that
     * cancelled gets to: the caller must still see the loss, not the cancellation (CI saw a
     * {@code CancellationException} on Java 25). The method's future here lets its canceller go on only once the
     * returned future is complete, the order that lost the race.
     */
    @Test
    void aLossCompletesTheReturnedFutureWithTheLossAlsoWhenTheReleaseOfTheCancelledStageComesFirst() throws Exception {
        AtomicReference<Runnable> loss = new AtomicReference<>();
        AtomicReference<CompletableFuture<@Nullable Object>> returned = new AtomicReference<>();
        CountDownLatch returnedSet = new CountDownLatch(1);
        CompletableFuture<String> method = new CompletableFuture<>() {
            @Override
            public boolean cancel(boolean mayInterruptIfRunning) {
                boolean cancelled = super.cancel(mayInterruptIfRunning);
                try {
                    returnedSet.await(10, TimeUnit.SECONDS);
                    returned.get().handle((value, error) -> value).get(10, TimeUnit.SECONDS);
                }
                catch (Exception ex) {
                    throw new IllegalStateException(ex);
                }
                return cancelled;
            }
        };
        returned.set(AsyncRelease.holdUntilComplete(method, interruptible(loss)));
        returnedSet.countDown();

        loss.get().run();

        assertThat(returned.get()).failsWithin(Duration.ofSeconds(10)).withThrowableThat()
                .withCauseInstanceOf(LeaseLostException.class);
        assertThat(method).isCancelled();
    }

    /** One lock asking for {@link OnLeaseLost#INTERRUPT}, whose loss the test reports through {@code loss}. */
    private static MultiLockHandle interruptible(AtomicReference<Runnable> loss) {
        LockHandle lock = new LockHandle() {
            @Override
            public String name() {
                return "job";
            }

            @Override
            public long fencingToken() {
                return 1;
            }

            @Override
            public boolean isHeld() {
                return true;
            }

            @Override
            public Duration remaining() {
                return Duration.ofSeconds(30);
            }

            @Override
            public OnLeaseLost onLeaseLost() {
                return OnLeaseLost.INTERRUPT;
            }

            @Override
            public LossWatch whenLost(Runnable action) {
                loss.set(action);
                return () -> false;
            }

            @Override
            public void unlock() {
                // Nothing held anywhere.
            }
        };
        return new MultiLockHandle() {
            @Override
            public List<LockHandle> locks() {
                return List.of(lock);
            }

            @Override
            public boolean isHeld() {
                return true;
            }

            @Override
            public void unlock() {
                lock.unlock();
            }
        };
    }

    /** Handles whose release blocks, on distlock's release threads, until the store answers. */
    static final class Releases {

        final CountDownLatch storeAnswers = new CountDownLatch(1);

        final CountDownLatch blocked = new CountDownLatch(AsyncRelease.RELEASE_THREADS);

        final AtomicInteger active = new AtomicInteger();

        final AtomicInteger activeOnPool = new AtomicInteger();

        final AtomicInteger maxConcurrent = new AtomicInteger();

        final AtomicInteger maxConcurrentOnPool = new AtomicInteger();

        final AtomicInteger onCaller = new AtomicInteger();

        final AtomicInteger unlocked = new AtomicInteger();

        final Thread test = Thread.currentThread();

        MultiLockHandle handle(String name) {
            return new MultiLockHandle() {

                @Override
                public List<LockHandle> locks() {
                    return List.of();
                }

                @Override
                public boolean isHeld() {
                    return true;
                }

                @Override
                public void unlock() {
                    maxConcurrent.accumulateAndGet(active.incrementAndGet(), Math::max);
                    try {
                        if (Thread.currentThread() == test) {
                            onCaller.incrementAndGet();
                        }
                        else {
                            maxConcurrentOnPool.accumulateAndGet(activeOnPool.incrementAndGet(), Math::max);
                            blocked.countDown();
                            awaitStore();
                            activeOnPool.decrementAndGet();
                        }
                        unlocked.incrementAndGet();
                    }
                    finally {
                        active.decrementAndGet();
                    }
                }
            };
        }

        private void awaitStore() {
            try {
                storeAnswers.await(30, TimeUnit.SECONDS);
            }
            catch (InterruptedException ex) {
                Thread.currentThread().interrupt();
            }
        }
    }
}
