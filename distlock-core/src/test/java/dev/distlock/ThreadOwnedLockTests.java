package dev.distlock;

import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.concurrent.locks.Lock;

import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;
import static org.awaitility.Awaitility.await;

/**
 * {@link LockService#asLock}: a {@link Lock} owned by the thread that locked it, reentrant for that thread, that
 * excludes other threads and other nodes through the store.
 */
class ThreadOwnedLockTests {

    private final InMemoryLockStore memory = new InMemoryLockStore();

    private final StoreLockService node = service();

    private final StoreLockService otherNode = service();

    private final ExecutorService thread = Executors.newSingleThreadExecutor();

    private StoreLockService service() {
        StoreLockService service = new StoreLockService(memory.connect(), LockConfig.defaults(), LockListener.NONE);
        service.start();
        return service;
    }

    @AfterEach
    void close() {
        thread.shutdownNow();
        node.close();
        otherNode.close();
    }

    private boolean freeForAnotherNode() {
        return otherNode.tryLock("stock", LockOptions.defaults().withWaitTime(Duration.ZERO)).map(handle -> {
            handle.unlock();
            return true;
        }).orElse(false);
    }

    @Test
    void theOwnerHoldsItReentrantlyAndTheStoreIsReleasedAtTheLastUnlock() {
        Lock lock = node.asLock("stock");
        lock.lock();
        assertThat(lock.tryLock()).as("reentrant for its owner").isTrue();
        assertThat(freeForAnotherNode()).isFalse();
        lock.unlock();
        assertThat(freeForAnotherNode()).as("one hold left").isFalse();
        lock.unlock();
        assertThat(freeForAnotherNode()).as("released in the store").isTrue();
    }

    @Test
    void anotherThreadNeitherTakesNorUnlocksIt() throws Exception {
        Lock lock = node.asLock("stock");
        lock.lock();
        assertThat(thread.submit(() -> lock.tryLock()).get(5, TimeUnit.SECONDS)).isFalse();
        assertThat(thread.submit(() -> lock.tryLock(50, TimeUnit.MILLISECONDS)).get(5, TimeUnit.SECONDS)).isFalse();
        Future<?> foreignUnlock = thread.submit(lock::unlock);
        assertThatExceptionOfType(java.util.concurrent.ExecutionException.class)
                .isThrownBy(() -> foreignUnlock.get(5, TimeUnit.SECONDS))
                .withCauseInstanceOf(IllegalMonitorStateException.class);
        assertThat(freeForAnotherNode()).isFalse();

        Future<Boolean> waiting = thread.submit(() -> {
            lock.lock();
            lock.unlock();
            return true;
        });
        lock.unlock();
        assertThat(waiting.get(5, TimeUnit.SECONDS)).as("the waiting thread got it once released").isTrue();
        assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
    }

    @Test
    void lockInterruptiblyEndsWithInterruptedExceptionAndLockWaitsOnThroughAnInterrupt() throws Exception {
        Lock lock = node.asLock("stock");
        lock.lock();
        AtomicReference<Thread> waiter = new AtomicReference<>();
        Future<Boolean> interruptible = thread.submit(() -> {
            waiter.set(Thread.currentThread());
            try {
                lock.lockInterruptibly();
                return false;
            }
            catch (InterruptedException ex) {
                return true;
            }
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> waiter.get() != null
                && waiter.get().getState() != Thread.State.RUNNABLE);
        waiter.get().interrupt();
        assertThat(interruptible.get(5, TimeUnit.SECONDS)).as("interrupted").isTrue();

        AtomicBoolean flagAfterwards = new AtomicBoolean();
        waiter.set(null);
        Future<?> uninterruptible = thread.submit(() -> {
            waiter.set(Thread.currentThread());
            lock.lock();
            flagAfterwards.set(Thread.interrupted());
            lock.unlock();
        });
        await().atMost(Duration.ofSeconds(5)).until(() -> waiter.get() != null
                && waiter.get().getState() != Thread.State.RUNNABLE);
        waiter.get().interrupt();
        assertThat(uninterruptible).as("still waiting after the interrupt").isNotDone();
        lock.unlock();
        uninterruptible.get(5, TimeUnit.SECONDS);
        assertThat(flagAfterwards).as("the interrupt is told afterwards").isTrue();
    }

    @Test
    void afterALostLeaseTheOwnersNextLockingCallTakesTheLockAnewOrFails() throws Exception {
        ThreadOwnedLock lock = node.asLock("stock");
        assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).as("a fixed lease for this acquisition")
                .isTrue();
        await().atMost(Duration.ofSeconds(5)).until(this::freeForAnotherNode);
        assertThat(lock.isHeldByCurrentThread()).as("still the owner of its holds").isTrue();
        assertThat(lock.tryLock()).as("taken anew from the store, not one more hold of a lost lease").isTrue();
        assertThat(freeForAnotherNode()).isFalse();
        lock.unlock();
        assertThat(freeForAnotherNode()).as("one hold left").isFalse();
        lock.unlock();
        assertThat(lock.isLocked()).isFalse();
        assertThat(freeForAnotherNode()).as("released in the store").isTrue();

        assertThat(lock.tryLock(Duration.ZERO, Duration.ofMillis(300))).isTrue();
        Optional<LockHandle> other = Optional.empty();
        while (other.isEmpty()) {
            other = otherNode.tryLock("stock", LockOptions.defaults().withWaitTime(Duration.ofSeconds(5)));
        }
        assertThat(lock.tryLock()).as("another node holds it since the lease ended").isFalse();
        assertThat(lock.isLocked()).as("the lost holds are void").isFalse();
        assertThatExceptionOfType(IllegalMonitorStateException.class).isThrownBy(lock::unlock);
        other.get().unlock();
        assertThat(lock.tryLock()).isTrue();
        lock.unlock();
        assertThat(freeForAnotherNode()).as("one unlock for one hold: released in the store").isTrue();
    }

    @Test
    void aLockHasNoConditions() {
        Lock lock = node.asLock("stock");
        assertThatExceptionOfType(UnsupportedOperationException.class).isThrownBy(lock::newCondition);
        assertThat(CompletableFuture.supplyAsync(lock::tryLock).join()).isTrue();
    }
}
