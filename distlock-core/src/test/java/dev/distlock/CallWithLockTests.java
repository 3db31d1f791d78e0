package dev.distlock;

import java.io.IOException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;

import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link LockService#callWithLock}: the work runs in a scope of the lock, and its checked exception reaches the
 * caller unwrapped, after the lock was released.
 */
class CallWithLockTests {

    private final StoreLockService service = new StoreLockService(new InMemoryLockStore(), LockConfig.defaults()
            .withWaitTime(Duration.ZERO), LockListener.NONE);

    @AfterEach
    void close() {
        service.close();
    }

    private boolean freeForAnotherCaller(String name) {
        return CompletableFuture.supplyAsync(() -> service.tryLock(name).map(handle -> {
            handle.unlock();
            return true;
        }).orElse(false)).join();
    }

    @Test
    void theWorkRunsInAScopeOfTheLockAndItsResultComesBack() throws IOException {
        String result = service.callWithLock("ledger", LockOptions.defaults(), () -> {
            assertThat(LockContext.current()).map(LockHandle::name).contains("ledger");
            assertThat(freeForAnotherCaller("ledger")).isFalse();
            return read();
        });
        assertThat(result).isEqualTo("read");
        assertThat(freeForAnotherCaller("ledger")).isTrue();
    }

    @Test
    void aCheckedExceptionReachesTheCallerAsItIsAfterTheRelease() {
        IOException failure = new IOException("disk full");
        assertThatExceptionOfType(IOException.class)
                .isThrownBy(() -> service.callWithLock("ledger", LockOptions.defaults(), () -> {
                    throw failure;
                }))
                .isSameAs(failure);
        assertThat(freeForAnotherCaller("ledger")).isTrue();
    }

    @Test
    void aLockNotAcquiredRunsNothing() throws Exception {
        LockHandle held = CompletableFuture.supplyAsync(() -> service.lock("ledger")).join();
        assertThatExceptionOfType(LockTimeoutException.class)
                .isThrownBy(() -> service.callWithLock("ledger", LockOptions.defaults(), this::unexpected));
        held.unlock();
    }

    private String read() throws IOException {
        return "read";
    }

    private String unexpected() throws IOException {
        throw new AssertionError("ran without the lock");
    }
}
