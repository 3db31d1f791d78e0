package dev.distlock.etcd.autoconfigure;

import java.lang.reflect.Constructor;

import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.etcd.EtcdLockStore;
import io.etcd.jetcd.Client;
import org.junit.jupiter.api.Test;

import org.springframework.aot.generate.ClassNameGenerator;
import org.springframework.aot.generate.DefaultGenerationContext;
import org.springframework.aot.generate.InMemoryGeneratedFiles;
import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.predicate.RuntimeHintsPredicates;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.context.annotation.ImportCandidates;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.aot.ApplicationContextAotGenerator;
import org.springframework.context.support.GenericApplicationContext;
import org.springframework.javapoet.ClassName;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * What Spring Boot finds of the etcd store's module without being told: its auto-configuration in
 * {@code META-INF/spring/...AutoConfiguration.imports}, and, when an etcd application is processed ahead of time
 * (as {@code spring-boot:process-aot} does), the runtime hints it needs. The module ships no hints of its own: the
 * registration's class names are registered by the auto-configuration module's hints for every registered store,
 * its constructor by Spring's for {@code spring.factories}, and the properties' binding by Spring Boot; jetcd's own
 * reflection is out of scope (no native image is built). Nothing is started.
 */
class DistlockEtcdAotProcessingTests {

    @Test
    void springBootFindsTheAutoConfiguration() {
        assertThat(ImportCandidates.load(AutoConfiguration.class, getClass().getClassLoader()))
                .contains(DistlockEtcdAutoConfiguration.class.getName());
    }

    @Test
    void aheadOfTimeProcessingRegistersWhatTheEtcdStoreReachesByName() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(DistlockEtcdAutoConfiguration.class,
                        DistlockAutoConfiguration.class))
                .withPropertyValues("distlock.store=etcd").prepare(context -> {
                    assertThat(context).hasNotFailed();
                    RuntimeHints hints = processAheadOfTime(
                            context.getSourceApplicationContext(GenericApplicationContext.class));
                    assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(
                            EtcdLockStoreRegistration.class.getConstructor())).accepts(hints);
                    for (Class<?> required : new Class<?>[] { EtcdLockStore.class, Client.class }) {
                        assertThat(new EtcdLockStoreRegistration().requiredClassNames())
                                .contains(required.getName());
                        assertThat(RuntimeHintsPredicates.reflection().onType(required)).accepts(hints);
                    }
                    Constructor<?> binding = EtcdLockStoreProperties.class.getDeclaredConstructors()[0];
                    assertThat(RuntimeHintsPredicates.reflection().onConstructorInvocation(binding))
                            .as("binding of distlock.etcd.*").accepts(hints);
                });
    }

    private static RuntimeHints processAheadOfTime(GenericApplicationContext context) {
        DefaultGenerationContext generationContext = new DefaultGenerationContext(
                new ClassNameGenerator(ClassName.get(DistlockEtcdAotProcessingTests.class)),
                new InMemoryGeneratedFiles());
        new ApplicationContextAotGenerator().processAheadOfTime(context, generationContext);
        return generationContext.getRuntimeHints();
    }
}
