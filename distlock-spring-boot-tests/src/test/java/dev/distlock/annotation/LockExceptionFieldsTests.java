package dev.distlock.annotation;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import dev.distlock.LockHandle;
import dev.distlock.LockOptions;
import dev.distlock.LockService;
import dev.distlock.LockTimeoutException;
import dev.distlock.LockUnavailableException;
import dev.distlock.autoconfigure.DistlockAnnotationAutoConfiguration;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.core.LockConfig;
import dev.distlock.core.StoreLockService;
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
import static org.assertj.core.api.Assertions.catchThrowableOfType;

/**
 * What application code can read from a lock failure without parsing its message: the lock names, the wait (the
 * effective one, also when it came from {@code distlock.wait-time}) and the annotated method; and messages that
 * give the wait in milliseconds.
 */
class LockExceptionFieldsTests {

    private static final Duration DEFAULT_WAIT = Duration.ofMillis(150);

    private ApplicationContextRunner runner(InMemoryLockStore store) {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DistlockAutoConfiguration.class,
                        DistlockAnnotationAutoConfiguration.class))
                .withBean(InMemoryLockService.class,
                        () -> new InMemoryLockService(store, LockConfig.defaults().withWaitTime(DEFAULT_WAIT)))
                .withBean(StockService.class);
    }

    /** What a timeout's message says of the holder: this service's instance id and the holder's token. */
    private static String heldBy(LockService service, LockHandle held) {
        return "; held by " + ((StoreLockService) service).config().instanceId() + " (fencing token "
                + held.fencingToken() + ")";
    }

    private static LockHandle holdOnOtherThread(LockService service, String name) {
        return CompletableFuture.supplyAsync(() -> service.lock(name)).join();
    }

    @Test
    void annotationTimeoutCarriesLockNameEffectiveWaitAndMethod() {
        runner(new InMemoryLockStore()).run(context -> {
            LockService locks = context.getBean(LockService.class);
            LockHandle held = holdOnOtherThread(locks, "stock:2");
            StockService stock = context.getBean(StockService.class);

            LockTimeoutException timeout = catchThrowableOfType(LockTimeoutException.class, () -> stock.deduct(2L));

            assertThat(timeout.lockNames()).containsExactly("stock:2");
            assertThat(timeout.waitTime()).contains(DEFAULT_WAIT);
            assertThat(timeout.method()).contains("StockService.deduct");
            assertThat(timeout).hasMessage("Lock 'stock:2' of " + StockService.class.getName()
                    + ".deduct not acquired within 150 ms" + heldBy(locks, held));

            LockHandle account = holdOnOtherThread(locks, "account:2");
            LockTimeoutException both = catchThrowableOfType(LockTimeoutException.class,
                    () -> stock.transfer(List.of(3L, 2L)));
            assertThat(both.lockNames()).containsExactly("account:3", "account:2");
            assertThat(both.waitTime()).contains(Duration.ofMillis(40));
            // Several locks: the message names those held and by whom (here only account:2 is).
            assertThat(both).hasMessageEndingWith("not all acquired within 40 ms; held: 'account:2' by "
                    + ((StoreLockService) locks).config().instanceId() + " (fencing token " + account.fencingToken()
                    + ")");
            account.unlock();
            held.unlock();
        });
    }

    @Test
    void programmaticTimeoutCarriesLockNamesAndEffectiveWaitButNoMethod() {
        runner(new InMemoryLockStore()).run(context -> {
            LockService locks = context.getBean(LockService.class);
            LockHandle held = holdOnOtherThread(locks, "report");

            LockTimeoutException one = catchThrowableOfType(LockTimeoutException.class,
                    () -> locks.lock("report", LockOptions.defaults()));
            assertThat(one.lockNames()).containsExactly("report");
            assertThat(one.waitTime()).contains(DEFAULT_WAIT);
            assertThat(one.method()).isEmpty();
            assertThat(one).hasMessage("Lock 'report' not acquired within 150 ms" + heldBy(locks, held));

            LockTimeoutException all = catchThrowableOfType(LockTimeoutException.class,
                    () -> locks.lockAll(List.of("report", "audit"), LockOptions.defaults()
                            .withWaitTime(Duration.ofMillis(20))));
            assertThat(all.lockNames()).containsExactly("audit", "report");
            assertThat(all.waitTime()).contains(Duration.ofMillis(20));
            assertThat(all).hasMessage("Locks [audit, report] not all acquired within 20 ms; held: 'report' by "
                    + ((StoreLockService) locks).config().instanceId() + " (fencing token " + held.fencingToken()
                    + ")");
            held.unlock();
        });
    }

    @Test
    void unavailableStoreCarriesLockNameAndMethod() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
                        DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class,
                        DistlockAnnotationAutoConfiguration.class))
                // A real Redis client pointed at a port where no Redis listens.
                .withPropertyValues("spring.data.redis.host=127.0.0.1",
                        "spring.data.redis.port=" + LoopbackPorts.free(), "distlock.wait-time=1s")
                .withBean(StockService.class)
                .run(context -> {
                    LockUnavailableException down = catchThrowableOfType(LockUnavailableException.class,
                            () -> context.getBean(StockService.class).deduct(5L));
                    assertThat(down.lockNames()).containsExactly("stock:5");
                    assertThat(down.method()).contains("StockService.deduct");
                    assertThat(down.waitTime()).contains(Duration.ofSeconds(1));
                    assertThat(down).hasMessageContaining("stock:5");

                    LockUnavailableException programmatic = catchThrowableOfType(LockUnavailableException.class,
                            () -> context.getBean(LockService.class).lock("stock:6"));
                    assertThat(programmatic.lockNames()).containsExactly("stock:6");
                    assertThat(programmatic.method()).isEmpty();
                });
    }

    /** A locked service as an application has one. */
    static class StockService {

        @DistributedLock(name = "stock", key = "#productId")
        public void deduct(long productId) {
        }

        @DistributedLock(name = "account", key = "#ids", waitTime = "40ms")
        public void transfer(List<Long> ids) {
        }
    }
}
