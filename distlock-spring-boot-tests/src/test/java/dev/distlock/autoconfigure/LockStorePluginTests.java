package dev.distlock.autoconfigure;

import java.io.IOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.distlock.LockHandle;
import dev.distlock.LockService;
import dev.distlock.core.StoreLockService;
import dev.distlock.memory.InMemoryLockStore;
import dev.distlock.redis.autoconfigure.DistlockRedisAutoConfiguration;
import dev.distlock.spi.LockStore;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration;
import org.springframework.boot.diagnostics.FailureAnalysis;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.context.annotation.Bean;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A store plugs in without the auto-configuration module knowing it: a store "module" made here (a
 * {@link LockStoreRegistration} in a {@code META-INF/spring.factories} of its own, an auto-configuration marked
 * {@link ConditionalOnLockStore}) next to the Redis store of this class path. {@code distlock.store} selects among
 * what is registered, and its errors name the stores present.
 */
class LockStorePluginTests {

    @TempDir
    static Path moduleRoot;

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(DataRedisAutoConfiguration.class,
                    DistlockRedisAutoConfiguration.class, MemoryStoreAutoConfiguration.class,
                    DistlockAutoConfiguration.class));

    /** The class path of an application with the Redis starter and the "memory" store module. */
    private static ClassLoader withMemoryStoreModule() throws IOException {
        Path factories = moduleRoot.resolve("META-INF/spring.factories");
        Files.createDirectories(factories.getParent());
        Files.writeString(factories, LockStoreRegistration.class.getName() + "="
                + MemoryStoreRegistration.class.getName() + "\n");
        return new URLClassLoader(new URL[] { moduleRoot.toUri().toURL() },
                LockStorePluginTests.class.getClassLoader());
    }

    @Test
    void theRegisteredStoreThatDistlockStoreNamesIsTheOneUsed() throws IOException {
        runner.withClassLoader(withMemoryStoreModule()).withPropertyValues("distlock.store=memory").run(context -> {
            assertThat(context).hasNotFailed();
            assertThat(context).getBean(LockStore.class).isInstanceOf(InMemoryLockStore.class);
            assertThat(context.getBeansOfType(LockStore.class)).hasSize(1);
            try (LockHandle handle = context.getBean(LockService.class).lock("plugged")) {
                assertThat(handle.isHeld()).isTrue();
            }
        });
    }

    @Test
    void withTwoStoresPresentAndNoChoiceStartUpFailsNamingBoth() throws IOException {
        runner.withClassLoader(withMemoryStoreModule()).run(context -> {
            assertThat(context).hasFailed().getFailure().rootCause()
                    .hasMessageContaining("Several lock stores are on the class path")
                    .hasMessageContaining("redis").hasMessageContaining("memory")
                    .hasMessageContaining("distlock.store");
            // Boot's report: Description / Action, found through the chain of bean and condition errors.
            FailureAnalysis analysis = new LockStoreFailureAnalyzer().analyze(context.getStartupFailure());
            assertThat(analysis).isNotNull();
            assertThat(analysis.getDescription()).startsWith("Several lock stores are on the class path (redis, "
                    + "memory)");
            assertThat(analysis.getAction()).isEqualTo("Set distlock.store to one of redis, memory (for example "
                    + "distlock.store=redis in application.properties), or remove the starters of the stores you do "
                    + "not use.");
        });
    }

    @Test
    void aStoreThatIsNotRegisteredFailsStartUpNamingThoseThatAre() throws IOException {
        runner.withClassLoader(withMemoryStoreModule()).withPropertyValues("distlock.store=consul")
                .run(context -> assertThat(context).hasFailed().getFailure().rootCause()
                        .hasMessageContaining("distlock.store=consul names no lock store on the class path")
                        .hasMessageContaining("present: redis, memory"));
    }

    @Test
    void aRegisteredStoreWhoseClientIsMissingFailsStartUpNamingItsStarter() {
        // distlock-etcd is on this class path (its registration is listed) but jetcd is not: this execution is a
        // Redis application's, as the surefire configuration makes it.
        runner.withPropertyValues("distlock.store=etcd").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("distlock.store=etcd but")
                .hasMessageContaining("io.etcd.jetcd.Client")
                .hasMessageContaining("dev.distlock:distlock-spring-boot-starter-etcd"));
    }

    @Test
    void withoutTheModuleItsIdSelectsNothing() {
        runner.withPropertyValues("distlock.store=memory").run(context -> assertThat(context).hasFailed()
                .getFailure().rootCause().hasMessageContaining("names no lock store on the class path"));
    }

    /** The registration of the store "module" of this test. */
    public static final class MemoryStoreRegistration implements LockStoreRegistration {

        @Override
        public String id() {
            return "memory";
        }

        @Override
        public List<String> requiredClassNames() {
            return List.of("dev.distlock.memory.InMemoryLockStore");
        }

        @Override
        public String starter() {
            return "the test's memory store";
        }

        @Override
        public String requirement() {
            return "nothing";
        }
    }

    /** The auto-configuration of the store "module" of this test. */
    @AutoConfiguration(before = DistlockAutoConfiguration.class)
    @ConditionalOnLockStore("memory")
    static class MemoryStoreAutoConfiguration {

        @Bean
        InMemoryLockStore memoryLockStore() {
            return new InMemoryLockStore();
        }
    }
}
