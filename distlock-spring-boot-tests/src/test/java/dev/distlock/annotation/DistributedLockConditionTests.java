package dev.distlock.annotation;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicInteger;

import dev.distlock.LockContext;
import dev.distlock.LockException;
import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.autoconfigure.DistlockAnnotationAutoConfiguration;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockConfig;
import dev.distlock.embedded.LoopbackPorts;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.redis.autoconfigure.DistlockRedisAutoConfiguration;
import dev.distlock.test.InMemoryLockService;
import org.junit.jupiter.api.Test;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatExceptionOfType;

/**
 * {@link DistributedLock#condition()} through the auto-configuration: a call whose condition is false runs without
 * the lock (and without the store), one whose condition is true is locked, and a condition that gives neither fails
 * closed.
 */
class DistributedLockConditionTests {

    private ApplicationContextRunner inMemory() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DistlockAutoConfiguration.class,
                        DistlockAnnotationAutoConfiguration.class))
                .withBean(InMemoryLockService.class,
                        () -> new InMemoryLockService(new InMemoryLockStore(), LockConfig.defaults()))
                .withBean(Orders.class);
    }

    private static LockHandle holdOnOtherThread(LockService service, String name) {
        return CompletableFuture.supplyAsync(() -> service.lock(name)).join();
    }

    @Test
    void aFalseConditionRunsTheMethodWithoutTheLockATrueOneLocksIt() {
        inMemory().run(context -> {
            Orders orders = context.getBean(Orders.class);
            LockHandle held = holdOnOtherThread(context.getBean(LockService.class), "order:7");

            assertThat(orders.place(7L, 0)).as("no lock, though another caller holds it").isFalse();
            assertThat(orders.calls()).isEqualTo(1);
            assertThatExceptionOfType(LockTimeoutException.class).isThrownBy(() -> orders.place(7L, 2));
            assertThat(orders.calls()).as("not called without the lock").isEqualTo(1);

            held.unlock();
            assertThat(orders.place(7L, 2)).as("locked").isTrue();
            assertThat(orders.calls()).isEqualTo(2);
        });
    }

    @Test
    void aConditionThatGivesNoBooleanFailsClosed() {
        inMemory().run(context -> {
            Orders orders = context.getBean(Orders.class);
            assertThatExceptionOfType(LockException.class).isThrownBy(() -> orders.note(null))
                    .withMessage("@DistributedLock condition '#note' of " + Orders.class.getName() + ".note evaluated "
                            + "to null, not true or false; the method was not called");
            assertThatExceptionOfType(LockException.class).isThrownBy(() -> orders.note("yes"))
                    .withMessageContaining("evaluated to a String, not true or false");
            assertThat(orders.calls()).isEqualTo(0);
        });
    }

    @Test
    void aFalseConditionNeedsNoStoreATrueOneFailsWhenTheStoreIsDown() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
                        DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class,
                        DistlockAnnotationAutoConfiguration.class))
                // A real Redis client pointed at a port where no Redis listens.
                .withPropertyValues("spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + LoopbackPorts.free(), "distlock.wait-time=1s")
                .withBean(Orders.class)
                .run(context -> {
                    Orders orders = context.getBean(Orders.class);
                    assertThat(orders.place(3L, 0)).isFalse();
                    assertThatExceptionOfType(LockUnavailableException.class).isThrownBy(() -> orders.place(3L, 1));
                    assertThat(orders.calls()).isEqualTo(1);
                });
    }

    /** Orders locked per order, except those without items. */
    static class Orders {

        private final AtomicInteger calls = new AtomicInteger();

        /** @return how often a method ran (a method, not the field: the bean is a proxy) */
        public int calls() {
            return calls.get();
        }

        /** @return whether the call ran in a lock scope */
        @DistributedLock(name = "order", key = "#orderId", waitTime = "0", condition = "#items > 0")
        public boolean place(long orderId, int items) {
            calls.incrementAndGet();
            return LockContext.current().isPresent();
        }

        @DistributedLock(name = "note", condition = "#note")
        public void note(String note) {
            calls.incrementAndGet();
        }
    }
}
