package dev.distlock.annotation;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import dev.distlock.LockContext;
import dev.distlock.LockHandle;
import dev.distlock.autoconfigure.DistlockAnnotationAutoConfiguration;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.DistlockRedisAutoConfiguration;
import dev.distlock.embedded.RedisServerProcess;
import dev.distlock.embedded.RedisServersExtension;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceAutoConfiguration;
import org.springframework.boot.jdbc.autoconfigure.DataSourceTransactionManagerAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.boot.transaction.autoconfigure.TransactionAutoConfiguration;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.data.redis.core.StringRedisTemplate;
import org.springframework.transaction.annotation.EnableTransactionManagement;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionSynchronization;
import org.springframework.transaction.support.TransactionSynchronizationManager;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The lock advice runs outside {@code @Transactional} by default: the transaction commits while the lock is still
 * held, in this JVM and in Redis. Uses a real DataSourceTransactionManager on H2.
 */
@ExtendWith(OutputCaptureExtension.class)
class TransactionOrderRedisTests {

    @RegisterExtension
    static RedisServersExtension redis = new RedisServersExtension();

    static RedisServerProcess server;

    @BeforeAll
    static void startRedis() {
        server = redis.start();
    }

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class, AopAutoConfiguration.class,
                        DataSourceAutoConfiguration.class, DataSourceTransactionManagerAutoConfiguration.class,
                        TransactionAutoConfiguration.class, DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class,
                        DistlockAnnotationAutoConfiguration.class))
                .withPropertyValues("spring.data.redis.host=" + server.host(),
                        "spring.data.redis.port=" + server.port(),
                        "spring.datasource.url=jdbc:h2:mem:distlock-tx;DB_CLOSE_DELAY=-1")
                .withUserConfiguration(TxConfig.class);
    }

    @Test
    void transactionCommitsWhileTheLockIsHeld(CapturedOutput output) {
        runner().run(context -> {
            assertThat(context.getBean(TxWork.class).work()).containsExactly("beforeCommit held=true",
                    "afterCommit held=true");
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
        TxWork txWork(StringRedisTemplate redis) {
            return new TxWork(redis);
        }
    }

    @Configuration(proxyBeanMethods = false)
    @EnableTransactionManagement(order = 0)
    static class TransactionOutermost {
    }

    static class TxWork {

        private final StringRedisTemplate redis;

        TxWork(StringRedisTemplate redis) {
            this.redis = redis;
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
            boolean inRedis = redis.keys("distlock*txlock*").stream().map(redis.opsForValue()::get)
                    .anyMatch(value -> value != null && !value.startsWith("free:"));
            return inThisCallChain && inRedis;
        }
    }
}
