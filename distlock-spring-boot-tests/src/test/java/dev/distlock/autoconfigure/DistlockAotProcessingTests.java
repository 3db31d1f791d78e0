package dev.distlock.autoconfigure;

import java.lang.reflect.Constructor;
import java.util.List;

import dev.distlock.annotation.DistributedLock;
import dev.distlock.annotation.LockExpressionRootObject;
import dev.distlock.actuate.DistlockEndpoint;
import dev.distlock.redis.autoconfigure.DistlockRedisAutoConfiguration;
import dev.distlock.redis.autoconfigure.RedisReplicationProperties;
import dev.distlock.redis.autoconfigure.RedlockProperties;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.TypeReference;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.actuate.autoconfigure.endpoint.EndpointAutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.autoconfigure.aop.AopAutoConfiguration;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * AOT processing of an application context made of the auto-configuration (Redis store, annotation support,
 * actuator endpoint), as {@code spring-boot:process-aot} does it, and the runtime hints it collects: those of
 * distlock's {@code aot.factories}, those Spring Boot derives from the beans ({@code @ConfigurationProperties}
 * binding, {@code @ReadOperation}), and those of {@code @DistributedLock} methods. Nothing is started: AOT
 * processing only reads the bean definitions.
 */
class DistlockAotProcessingTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(AopAutoConfiguration.class, DataRedisAutoConfiguration.class,
                    DistlockRedisAutoConfiguration.class, DistlockAutoConfiguration.class,
                    DistlockAnnotationAutoConfiguration.class, DistlockActuatorAutoConfiguration.class,
                    EndpointAutoConfiguration.class))
            .withPropertyValues("management.endpoints.web.exposure.include=distlock")
            .withBean(Stock.class);

    @Test
    void hintsCoverWhatTheAutoConfiguredApplicationReachesAtRunTime() {
        runner.prepare(context -> {
            RuntimeHints hints = processAheadOfTime(
                    context.getSourceApplicationContext(GenericApplicationContext.class));
            // distlock's aot.factories of every module on the class path (core, Redis, auto-configuration).
            assertThat(RuntimeHintsPredicates.resource().forResource("dev/distlock/redis/acquire.lua")).accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(LockExpressionRootObject.class,
                    "methodName")).accepts(hints);
            // The store registrations: Spring's hints of spring.factories, and distlock's of their required classes.
            List<LockStoreRegistration> stores = LockStoreSelection.registered(getClass().getClassLoader());
            assertThat(stores).extracting(LockStoreRegistration::id).contains("redis");
            assertThat(stores).allSatisfy(store -> {
                assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(
                        store.getClass().getConstructor())).accepts(hints);
                assertThat(store.requiredClassNames()).allSatisfy(name -> assertThat(RuntimeHintsPredicates
                        .reflection().onType(TypeReference.of(name))).accepts(hints));
            });
            assertThat(RuntimeHintsPredicates.resource().forResource("META-INF/spring.factories")).accepts(hints);
            // Spring Boot's own processing of the beans, which distlock relies on instead of hints of its own.
            for (Class<?> properties : List.of(DistlockProperties.class, RedisReplicationProperties.class,
                    RedlockProperties.class)) {
                Constructor<?> binding = properties.getDeclaredConstructors()[0];
                assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(binding))
                        .as("binding of %s", properties.getSimpleName()).accepts(hints);
            }
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(DistlockEndpoint.class, "locks"))
                    .accepts(hints);
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(
                    DistlockEndpoint.HeldLockDescriptor.class, "fencingToken")).accepts(hints);
            // The application's @DistributedLock method, through the @Reflective meta-annotation.
            assertThat(RuntimeHintsPredicates.reflection().onMethodInvocation(Stock.class, "deduct")).accepts(hints);
        });
    }

    private static RuntimeHints processAheadOfTime(GenericApplicationContext context) {
        DefaultGenerationContext generationContext = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get(DistlockAotProcessingTests.class)), new InMemoryGeneratedFiles());
        new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
        return generationContext.getRuntimeHints();
    }

    /** An application bean with a locked method. */
    static class Stock {

        @DistributedLock(key = "#id")
        public int deduct(long id) {
            return 1;
        }
    }
}
