package dev.distlock.test.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.net.URLClassLoader;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import dev.distlock.autoconfigure.ConditionalOnLockStore;
import dev.distlock.autoconfigure.DistlockAutoConfiguration;
import dev.distlock.autoconfigure.LockStoreRegistration;
import dev.distlock.memory.InMemoryLockStore;

import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.context.annotation.Bean;

/**
 * A second lock store "module" on a store's test class path, so that a store module tests its own store selection
 * with two stores present ({@code distlock.store=<id>} chooses it, no choice fails start-up naming
 * {@code distlock.store}) without depending on another real store. The module is an in-memory store with the id
 * {@value #ID}: a {@link LockStoreRegistration} listed in a {@code META-INF/spring.factories} of its own (in a
 * directory the test owns) and an auto-configuration marked {@link ConditionalOnLockStore}, as a real store module
 * has them. Add {@link Config} to the context runner's auto-configurations and run it with
 * {@link #classLoader(Path)}.
 */
public final class AnotherStore {

    /** The id of the second store, the value of {@code distlock.store} that selects it. */
    public static final String ID = "memory";

    private AnotherStore() {
    }

    /**
     * @param directory an empty directory of the test's (a JUnit {@code @TempDir}), where the module's
     *        {@code META-INF/spring.factories} is written
     * @return a class loader over the test's own class path plus the second store's registration
     */
    public static ClassLoader classLoader(Path directory) {
        try {
            Path factories = directory.resolve("META-INF/spring.factories");
            Files.createDirectories(factories.getParent());
            Files.writeString(factories, LockStoreRegistration.class.getName() + "=" + Registration.class.getName()
                    + "\n");
            return new URLClassLoader(new URL[] { directory.toUri().toURL() }, AnotherStore.class.getClassLoader());
        }
        catch (IOException ex) {
            throw new UncheckedIOException("Could not write the second store's spring.factories in " + directory, ex);
        }
    }

    /** The registration of the second store. */
    public static final class Registration implements LockStoreRegistration {

        @Override
        public String id() {
            return ID;
        }

        @Override
        public List<String> requiredClassNames() {
            return List.of(InMemoryLockStore.class.getName());
        }

        @Override
        public String starter() {
            return "the tests' second store (dev.distlock.test.support.AnotherStore)";
        }

        @Override
        public String requirement() {
            return "nothing";
        }
    }

    /** The auto-configuration of the second store: an in-memory store when {@code distlock.store} selects it. */
    @AutoConfiguration(before = DistlockAutoConfiguration.class)
    @ConditionalOnLockStore(ID)
    public static final class Config {

        @Bean
        InMemoryLockStore anotherLockStore() {
            return new InMemoryLockStore();
        }
    }
}
