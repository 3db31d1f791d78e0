package dev.distlock.core;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import dev.distlock.LockException;
import dev.distlock.LockUnavailableException;
import dev.distlock.listener.LockListener;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.spi.Attempt;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.LockRequest;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.StoreHealth;
import dev.distlock.spi.StoreTraits;
import dev.distlock.spi.Waiting;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The engine's calls to a store fail closed with a typed exception also when the store throws instead of answering
 * with a failed stage: the caller gets {@link LockUnavailableException} naming the store and the cause, and a
 * store's own {@link LockException} keeps its type. A store that does not answer is named with how long it was waited
 * for.
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

    /**
     * An attempt is waited for the command timeout plus the store's answer allowance (Redis waiting for replicas), and
     * the message says so: it waited 3 s where the message said 2 s (the sample's fail-closed demo).
     */
    @Test
    void anUnansweredAttemptNamesTheWholeTimeItWasWaitedFor() {
        LockConfig config = LockConfig.defaults().withCommandTimeout(Duration.ofMillis(200));
        try (StoreLockService service = new StoreLockService(silentStore(), config, LockListener.NONE)) {
            service.start();
            assertThatThrownBy(() -> service.lock("stock")).isInstanceOf(LockUnavailableException.class)
                    .hasMessage("SilentStore did not answer (acquire lock 'stock') within 500 ms, "
                            + "distlock.command-timeout (200 ms) plus the store's answer allowance");
        }
    }

    /** A health check is waited for its own timeout, and says that one, whatever its length (here the attempt's). */
    @Test
    void anUnansweredHealthCheckNamesItsOwnTimeout() {
        LockConfig config = LockConfig.defaults().withCommandTimeout(Duration.ofMillis(200));
        try (StoreLockService service = new StoreLockService(silentStore(), config, LockListener.NONE)) {
            service.start();
            assertThat(service.storeHealth(Duration.ofMillis(500)).details())
                    .containsEntry("error", "SilentStore did not answer (check its health) within 500 ms");
        }
    }

    /** A store that answers no attempt and no health check, as a frozen server, and gets 300 ms more per attempt. */
    private static LockStore silentStore() {
        return new ForwardingLockStore(new InMemoryLockStore().connect()) {
            @Override
            public StoreTraits traits() {
                return super.traits().withAnswerAllowance(Duration.ofMillis(300));
            }

            @Override
            public CompletionStage<Attempt> attempt(LockRequest request, Waiting waiting) {
                return new CompletableFuture<>();
            }

            @Override
            public CompletionStage<StoreHealth> health() {
                return new CompletableFuture<>();
            }

            @Override
            public String toString() {
                return "SilentStore";
            }
        };
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
