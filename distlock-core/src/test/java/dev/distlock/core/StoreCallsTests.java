package dev.distlock.core;

import dev.distlock.spi.Waiting;
import java.util.concurrent.CompletionStage;

import dev.distlock.LockException;
import dev.distlock.LockUnavailableException;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's calls to a store fail closed with a typed exception also when the store throws instead of answering
 * with a failed stage: the caller gets {@link LockUnavailableException} naming the store and the cause, and a
 * store's own {@link LockException} keeps its type.
 */
class StoreCallsTests {

    private static StoreLockService serviceOn(RuntimeException thrown) {
        LockStore throwing = new ForwardingLockStore(new InMemoryLockStore().connect()) {
            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
                throw thrown;
            }

            @Override
            public String toString() {
                return "ThrowingStore";
            }
        };
        StoreLockService service = new StoreLockService(throwing, LockConfig.defaults(), LockListener.NONE);
        service.start();
        return service;
    }

    @Test
    void anAttemptThatThrowsIsAnUnavailableStore() {
        try (StoreLockService service = serviceOn(new IllegalStateException("client closed"))) {
            assertThatThrownBy(() -> service.lock("stock"))
                    .isInstanceOf(LockUnavailableException.class)
                    .hasMessageContaining("ThrowingStore")
                    .hasMessageContaining("client closed");
        }
    }

    @Test
    void aLockExceptionThrownByTheStoreKeepsItsType() {
        try (StoreLockService service = serviceOn(new LockException("held with 3 permits"))) {
            assertThatThrownBy(() -> service.lock("stock"))
                    .isExactlyInstanceOf(LockException.class)
                    .hasMessage("held with 3 permits");
        }
    }
}
