package dev.distlock.autoconfigure;

import java.io.IOException;
import java.io.InputStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.util.Collections;
import java.util.Set;

import dev.distlock.LockService;
import dev.distlock.annotation.AnnotationLockOperationSource;
import dev.distlock.annotation.DistributedLock;
import dev.distlock.annotation.DistributedLockAdvisor;
import dev.distlock.annotation.DistributedLockInterceptor;
import dev.distlock.annotation.DistributedLockMethodValidator;
import dev.distlock.annotation.LockOperationSource;
import dev.distlock.annotation.TransactionOrderVerifier;
import dev.distlock.core.StoreLockService;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.redis.autoconfigure.DistlockRedisAutoConfiguration;
import dev.distlock.spi.ForwardingLockStore;
import dev.distlock.spi.LockStore;
import dev.distlock.spi.StoreTraits;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.mock.env.MockEnvironment;
import org.springframework.transaction.interceptor.TransactionInterceptor;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Conditions and properties of {@link DistlockAnnotationAutoConfiguration}, with the auto-configured lock service on
 * an in-memory lock store (the application's {@link LockStore} bean, which the Redis store's auto-configuration
 * backs off from; it still checks {@code distlock.store}).
 */
class DistlockAnnotationAutoConfigurationTests {

    private ApplicationContextRunner runner() {
        return new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistlockRedisAutoConfiguration.class,
                        DistlockAutoConfiguration.class, DistlockAnnotationAutoConfiguration.class))
                .withBean(LockStore.class, InMemoryLockStore::new);
    }

    @Test
    void registersAnnotationSupportWhenALockServiceExists() {
        runner().run(context -> {
            assertThat(context).hasSingleBean(LockService.class).hasSingleBean(StoreLockService.class)
                    .hasSingleBean(LockOperationSource.class)
                    .hasSingleBean(DistributedLockInterceptor.class).hasSingleBean(DistributedLockAdvisor.class)
                    .hasSingleBean(DistributedLockMethodValidator.class).hasSingleBean(TransactionOrderVerifier.class);
            assertThat(context.getBean(DistributedLockAdvisor.class).getOrder())
                    .isEqualTo(DistlockProperties.DEFAULT_ASPECT_ORDER);
        });
    }

    @Test
    void startsWithoutALockServiceWhenNothingIsAnnotated() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistlockRedisAutoConfiguration.class,
                        DistlockAutoConfiguration.class, DistlockAnnotationAutoConfiguration.class))
                .run(context -> assertThat(context).hasNotFailed().doesNotHaveBean(LockService.class));
    }

    @Test
    void annotatedMethodsWithoutALockStoreFailStartUpSayingWhy() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                        DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class,
                        DistlockAnnotationAutoConfiguration.class))
                .withBean(Locked.class)
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasMessageContaining("@DistributedLock on " + Locked.class.getName() + ".work")
                        .hasMessageContaining("RedisConnectionFactory")
                        .hasMessageContaining("distlock.enabled=false"));
    }

    @Test
    void severalStoresOnTheClassPathWithoutDistlockStoreFailStartUpNamingTheProperty() {
        runner().withPropertyValues("distlock.store=cassandra").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("distlock.store=cassandra"));
    }

    @Test
    void permitsOnAStoreWithoutThemFailStartUpNamingTheMethod() {
        runner().withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class)).withBean(Pool.class)
                .run(context -> assertThat(context).hasNotFailed());
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class,
                        DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class,
                        DistlockAnnotationAutoConfiguration.class))
                .withBean(LockStore.class, () -> new ForwardingLockStore(new InMemoryLockStore()) {
                    @Override
                    public StoreTraits traits() {
                        return StoreTraits.of(StoreTraits.LeaseKind.EXPIRING, StoreTraits.TokenSource.COUNTER);
                    }
                }).withBean(Pool.class)
                .run(context -> assertThat(context).hasFailed().getFailure()
                        .hasMessageContaining("@DistributedLock(permits = 3) on " + Pool.class.getName() + ".work")
                        .hasMessageContaining("needs a lock store with permits"));
    }

    /** A bean whose locked method asks for three permits. */
    static class Pool {

        @DistributedLock(name = "pool", permits = 3)
        public void work() {
        }
    }

    /** A bean with a locked method. */
    static class Locked {

        @DistributedLock(name = "work")
        public void work() {
        }
    }

    @Test
    void backsOffWhenDisabled() {
        runner().withPropertyValues("distlock.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(LockService.class)
                        .doesNotHaveBean(DistributedLockAdvisor.class)
                        .doesNotHaveBean(DistributedLockMethodValidator.class));
    }

    @Test
    void skipsTheTransactionCheckWithoutSpringTx() {
        runner().withClassLoader(new FilteredClassLoader(TransactionInterceptor.class))
                .run(context -> assertThat(context).hasSingleBean(DistributedLockAdvisor.class)
                        .doesNotHaveBean(TransactionOrderVerifier.class));
    }

    @Test
    void everyBeanCanBeReplaced() {
        runner().withUserConfiguration(OwnBeans.class).run(context -> {
            assertThat(context).hasSingleBean(LockOperationSource.class).hasSingleBean(DistributedLockAdvisor.class)
                    .hasSingleBean(DistributedLockInterceptor.class).hasSingleBean(DistributedLockMethodValidator.class);
            assertThat(context.getBean(LockOperationSource.class)).isSameAs(OwnBeans.SOURCE);
            assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(7);
        });
    }

    @Test
    void aspectOrderProperty() {
        runner().withPropertyValues("distlock.aspect-order=42")
                .run(context -> assertThat(context.getBean(DistributedLockAdvisor.class).getOrder()).isEqualTo(42));
    }

    @Test
    void invalidPropertiesFailStartUpNamingTheProperty() {
        assertFailure("distlock.aspect-order=first", "distlock.aspect-order");
        assertFailure("distlock.wait-time=-1s", "distlock.wait-time");
        assertFailure("distlock.wait-time=soon", "distlock.wait-time");
        assertFailure("distlock.lease-time=0s", "distlock.lease-time");
        assertFailure("distlock.key-prefix= ", "distlock.key-prefix");
        assertFailure("distlock.command-timeout=0s", "distlock.command-timeout");
        assertFailure("distlock.on-lease-lost=maybe", "distlock.on-lease-lost");
    }

    @Test
    void invalidAnnotationFailsStartUpNamingClassMethodAndAttribute() {
        runner().withBean(BadKey.class).run(context -> assertThat(messages(context.getStartupFailure()))
                .contains("Invalid @DistributedLock on " + BadKey.class.getName() + ".deduct: key '#prodId' refers "
                        + "to #prodId, which is not a parameter of the method (parameters: productId)"));
        // The second method of the bean is validated as well, not only the first that makes it a proxy candidate.
        runner().withBean(BadSecondMethod.class).run(context -> assertThat(messages(context.getStartupFailure()))
                .contains(BadSecondMethod.class.getName() + ".second: leaseTime '-5s' must be at least 1ms"));
    }

    @Test
    @ExtendWith(OutputCaptureExtension.class)
    void methodsRelyingOnTheDefaultNameAreListedOnceAtStartUp(CapturedOutput output) {
        runner().withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class))
                .withBean(BadSecondMethodFixed.class).withBean(Locked.class).run(context -> {
                    assertThat(context).hasNotFailed();
                    String intro = "@DistributedLock methods without a name lock '<SimpleClassName>.<methodName>'";
                    assertThat(output.getOut().split(java.util.regex.Pattern.quote(intro), -1)).hasSize(2);
                    String line = output.getOut().lines().filter(l -> l.contains(intro)).findFirst().orElseThrow();
                    assertThat(line).contains(" INFO ").endsWith("set name = \"...\" on: BadSecondMethodFixed.first, "
                            + "BadSecondMethodFixed.second");
                    assertThat(line).doesNotContain("Locked.work");
                });
    }

    /** Two methods that rely on the default name. */
    static class BadSecondMethodFixed {

        @DistributedLock
        public void first() {
        }

        @DistributedLock(leaseTime = "5s")
        public void second() {
        }
    }

    @Test
    void metadataDocumentsEveryProperty() throws IOException {
        String metadata = distlockMetadata();
        for (String property : Set.of("enabled", "key-prefix", "wait-time", "lease-time", "on-lease-lost",
                "command-timeout", "aspect-order", "problem-details.enabled", "problem-details.retry-after")) {
            assertThat(metadata).contains("\"name\": \"distlock." + property + "\"");
        }
        assertThat(metadata).contains("\"defaultValue\": \"3s\"", "\"defaultValue\": \"30s\"",
                "\"defaultValue\": \"2s\"", "\"defaultValue\": \"distlock\"", "\"value\": \"throw\"");
    }

    private void assertFailure(String property, String name) {
        runner().withPropertyValues(property).run(context -> assertThat(context).hasFailed().getFailure()
                .satisfies(failure -> assertThat(messages(failure)).as(property).contains(name)));
    }

    private static String messages(Throwable failure) {
        StringBuilder all = new StringBuilder();
        for (Throwable t = failure; t != null; t = t.getCause()) {
            all.append(t.getMessage()).append('\n');
        }
        return all.toString();
    }

    private static String distlockMetadata() throws IOException {
        for (URL url : Collections.list(DistlockAnnotationAutoConfigurationTests.class.getClassLoader()
                .getResources("META-INF/spring-configuration-metadata.json"))) {
            try (InputStream in = url.openStream()) {
                String content = new String(in.readAllBytes(), StandardCharsets.UTF_8);
                if (content.contains("dev.distlock.autoconfigure.DistlockProperties")) {
                    return content;
                }
            }
        }
        throw new AssertionError("no configuration metadata for distlock.*");
    }

    @Configuration(proxyBeanMethods = false)
    static class OwnBeans {

        static final LockOperationSource SOURCE = new AnnotationLockOperationSource(new MockEnvironment(),
                name -> false);

        @Bean
        LockOperationSource myOperationSource() {
            return SOURCE;
        }

        @Bean
        DistributedLockInterceptor myInterceptor(LockService lockService) {
            return new DistributedLockInterceptor(SOURCE, () -> lockService);
        }

        @Bean
        DistributedLockAdvisor myAdvisor(DistributedLockInterceptor interceptor) {
            return new DistributedLockAdvisor(SOURCE, interceptor, 7);
        }

        @Bean
        static DistributedLockMethodValidator myValidator() {
            return new DistributedLockMethodValidator(SOURCE);
        }
    }

    static class BadKey {

        @DistributedLock(key = "#prodId")
        public void deduct(long productId) {
        }
    }

    static class BadSecondMethod {

        @DistributedLock
        public void first() {
        }

        @DistributedLock(leaseTime = "-5s")
        public void second() {
        }
    }
}
