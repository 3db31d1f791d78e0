package dev.distlock.autoconfigure;

import org.jspecify.annotations.Nullable;

import org.springframework.aot.hint.RuntimeHints;
import org.springframework.aot.hint.RuntimeHintsRegistrar;
import org.springframework.aot.hint.TypeReference;

/**
 * Runtime hints (AOT, native images) of the auto-configuration. AOT processing evaluates the conditions at build
 * time, but the start-up check for a missing lock store ({@link LockServiceRequiredVerifier}) still looks up the
 * required classes of every {@link LockStoreRegistration} by name to say which store is on the class path; in a
 * native image a name that is not registered is not found and the message would be wrong. The registrations
 * themselves need nothing here: Spring registers {@code META-INF/spring.factories} and the constructors of the
 * classes it lists ({@code SpringFactoriesLoaderRuntimeHints}), and Spring Boot the binding hints of every
 * {@code @ConfigurationProperties} bean. Registered in {@code META-INF/spring/aot.factories}.
 */
final class DistlockAutoConfigurationRuntimeHints implements RuntimeHintsRegistrar {

    @Override
    public void registerHints(RuntimeHints hints, @Nullable ClassLoader classLoader) {
        for (LockStoreRegistration store : LockStoreSelection.registered(classLoader)) {
            store.requiredClassNames().forEach(name -> hints.reflection().registerType(TypeReference.of(name)));
        }
    }
}
