package dev.distlock.annotation;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.autoconfigure.DistlockAnnotationAutoConfiguration;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.test.InMemoryLockService;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static dev.distlock.test.DistlockAssertions.assertThat;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock advice runs outside {@code @Transactional} by default: the transaction commits while the lock is still
 * held, by this call chain and in the lock store (here the in-memory one: the ordering of the advice is what is
 * tested, not the store). Uses a real DataSourceTransactionManager on H2.
 */
@ExtendWith(OutputCaptureExtension.class)
class TransactionOrderTests {

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataSourceAutoConfiguration.class,
                        DataSourceTransactionManagerAutoConfiguration.class, TransactionAutoConfiguration.class,
                        DistlockAutoConfiguration.class, DistlockAnnotationAutoConfiguration.class))
                .withPropertyValues("spring.datasource.url=jdbc:h2:mem:distlock-tx;DB_CLOSE_DELAY=-1")
                .withBean(InMemoryLockService.class, InMemoryLockService::new)
                .withUserConfiguration(TxConfig.class);
    }

    @Test
    void transactionCommitsWhileTheLockIsHeld(CapturedOutput output) {
        runner().run(context -> {
            TxWork work = context.getBean(TxWork.class);
            assertThat(context.getBean(InMemoryLockService.class)).ranUnderLock("txlock",
                    () -> assertThat(work.work()).containsExactly("beforeCommit held=true", "afterCommit held=true"));
            assertThat(output).doesNotContain("runs inside the transaction advice");
        });
    }

    @Test
    void orderingTheLockInsideTheTransactionIsWarnedAbout(CapturedOutput output) {
        runner().withUserConfiguration(TransactionOutermost.class).run(context -> {
            assertThat(output).contains("The @DistributedLock advice (distlock.aspect-order=2147482647) runs inside "
                    + "the transaction advice (order 0)");
            // What the warning is about: by commit time the lock is gone.
            assertThat(context.getBean(TxWork.class).work()).containsExactly("beforeCommit held=false",
                    "afterCommit held=false");
        });
    }

    @Configuration(proxyBeanMethods = false)
    static class TxConfig {

        @Bean
        TxWork txWork(InMemoryLockService locks) {
            return new TxWork(locks);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = 0)
    static class TransactionOutermost {
    }

    static class TxWork {

        private final InMemoryLockService locks;

        TxWork(InMemoryLockService locks) {
            this.locks = locks;
        }

        @DistributedLock(name = "txlock")
        @Transactional
        public List<String> work() {
            assertThat(TransactionSynchronizationManager.isActualTransactionActive()).isTrue();
            List<String> seen = new CopyOnWriteArrayList<>();
            TransactionSynchronizationManager.registerSynchronization(new TransactionSynchronization() {

                @Override
                public void beforeCommit(boolean readOnly) {
                    seen.add("beforeCommit held=" + held());
                }

                @Override
                public void afterCommit() {
                    seen.add("afterCommit held=" + held());
                }
            });
            return seen;
        }

        private boolean held() {
            boolean inThisCallChain = LockContext.current().filter(LockHandle::isHeld).isPresent();
            boolean inTheStore = locks.store().isLocked("txlock");
            return inThisCallChain && inTheStore;
        }
    }
}
